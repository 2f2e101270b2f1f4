/**
 * Prospero's dashboard: the fleet live through `fleetChanges`, one agent's timeline live through
 * `agentEvents`, mutations over HTTP. The route is the URL hash: `#/agent/<id>` opens an agent.
 * Without a session (the gateway answers 401) it shows the sign-in panel instead; a session that
 * ends while the page is open (token revoked or expired) brings the panel back.
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
import { currentSession, signOut, type Viewer } from "./api/session.js";
import { renderSignIn } from "./ui/sign-in.js";

/** How often the age column is redrawn, ms (local clock only, no requests). */
const AGE_TICK_MS = 5_000;

/** Pause before following the fleet again after the gateway refused or ended the subscription, ms. */
const FLEET_RETRY_MS = 3_000;

function routeAgentId(): string | null {
  const m = /^#\/agent\/([0-9A-Za-z_-]+)$/.exec(location.hash);
  return m?.[1] ?? null;
}

/** Why a `?token=` sign-in did not happen, by the gateway's `login=` answer. */
const LOGIN_FAILURES: Readonly<Record<string, string>> = {
  failed: "That token was not accepted (unknown, expired or revoked).",
  "cross-site":
    "Sign-in links work only when opened directly (pasted into the address bar, or opened from the terminal), not from another site. Paste the token here instead.",
};

/** Show the sign-in panel instead of the fleet; a successful sign-in reloads the page. */
function showSignIn(reason: string | null): void {
  byId("main", HTMLElement).hidden = true;
  byId("whoami", HTMLParagraphElement).hidden = true;
  showConnection("signed-out");
  const panel = byId("sign-in", HTMLElement);
  panel.hidden = false;
  renderSignIn(panel, reason, () => location.reload());
}

function showViewer(viewer: Viewer): void {
  const scope = viewer.workspaces ? ` · ${viewer.workspaces.join(", ")}` : "";
  byId("whoami-name", HTMLSpanElement).textContent = `${viewer.name} (${viewer.role.toLowerCase()}${scope})`;
  byId("whoami", HTMLParagraphElement).hidden = false;
  byId("sign-out", HTMLButtonElement).addEventListener("click", () => {
    void signOut().then(() => location.reload());
  });
}

async function boot(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const login = params.get("login");
  if (login !== null) {
    params.delete("login");
    const rest = params.toString();
    history.replaceState(null, "", `${location.pathname}${rest ? `?${rest}` : ""}${location.hash}`);
  }
  const session = await currentSession();
  if (session.kind === "signed-out") {
    showSignIn(LOGIN_FAILURES[login ?? ""] ?? session.reason);
    return;
  }
  showViewer(session.viewer);
  start();
}

function start(): void {
  const fleet = new FleetState();
  const live = new LiveConnection(defaultWsUrl(), showConnection, (reason) =>
    showSignIn(`Signed out by the gateway: ${reason}.`),
  );
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

void boot();
