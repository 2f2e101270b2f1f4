/**
 * Prospero's dashboard: the fleet live through `fleetChanges`, one agent's timeline live through
 * `agentEvents`, mutations over HTTP. The route is the URL hash: `#/agent/<id>` opens an agent.
 */
import "./style.css";
import { FLEET_CHANGES } from "./api/documents.js";
import { defaultWsUrl, LiveConnection } from "./api/live.js";
import type { FleetChange } from "./api/types.js";
import { FleetState } from "./state/fleet.js";
import { AgentsTable } from "./ui/agents-table.js";
import { AgentView } from "./ui/agent-view.js";
import { showConnection } from "./ui/announce.js";
import { byId } from "./ui/dom.js";
import { LaunchForm } from "./ui/launch-form.js";
import { renderWorkspaces } from "./ui/workspaces.js";

/** How often the age column is redrawn, ms (local clock only, no requests). */
const AGE_TICK_MS = 5_000;

/** Pause before following the fleet again after the gateway refused or ended the subscription, ms. */
const FLEET_RETRY_MS = 3_000;

function routeAgentId(): string | null {
  const m = /^#\/agent\/([0-9A-Za-z_-]+)$/.exec(location.hash);
  return m?.[1] ?? null;
}

function start(): void {
  const fleet = new FleetState();
  const live = new LiveConnection(defaultWsUrl(), showConnection);
  const workspaces = byId("workspaces", HTMLDivElement);
  const fleetError = byId("fleet-error", HTMLParagraphElement);
  const table = new AgentsTable(byId("agents", HTMLDivElement));
  const view = new AgentView(byId("agent-view", HTMLElement), fleet, live);
  const launch = new LaunchForm(byId("launch", HTMLDivElement), fleet);

  fleet.onChange((update) => {
    renderWorkspaces(workspaces, fleet);
    table.sync(fleet);
    if (update.type === "seeded" || update.type === "workspace") launch.syncWorkspaces();
    view.refresh();
  });

  const followFleet = (): void => {
    live.subscribe<{ fleetChanges: FleetChange }>({
      query: FLEET_CHANGES,
      variables: () => ({}),
      next: (data) => {
        if (data.fleetChanges.__typename === "FleetSeedComplete") fleetError.hidden = true;
        fleet.apply(data.fleetChanges);
      },
      error: (message) => {
        // Refused by the gateway (e.g. its store is not open yet): say so, then try again.
        fleetError.textContent = `The gateway refused the fleet subscription: ${message}. Retrying…`;
        fleetError.hidden = false;
        window.setTimeout(followFleet, FLEET_RETRY_MS);
      },
      complete: () => window.setTimeout(followFleet, FLEET_RETRY_MS),
    });
  };
  followFleet();

  const route = () => {
    const id = routeAgentId();
    view.show(id);
    table.select(id);
  };
  window.addEventListener("hashchange", () => {
    route();
    // The operator chose an agent: take keyboard focus there (on narrow screens it is far below).
    if (routeAgentId() !== null) view.focus();
  });
  route();
  window.setInterval(() => table.tick(), AGE_TICK_MS);
}

start();
