/**
 * Prospero's dashboard: the fleet live through `fleetChanges`, one agent's timeline live through
 * `agentEvents`, the launch queue (refreshed after the `LaunchChanged` / `ScheduleChanged` items
 * of the same subscription), the operator inbox live through `inboxChanges` (its count in the
 * header on every view), mutations over HTTP. The route is the URL hash: `#/` the overview,
 * `#/agents?…` the agents table (its filters, order and page in the query: src/state/agents.ts),
 * `#/agent/<id>[/<tab>]` an agent next to the table, `#/queue` the queue view and
 * `#/queue/<launchId>` a launch in it, `#/inbox` the inbox and `#/inbox/<itemId>` one item in it.
 * The header's Launch button (operators) opens the launch form in a drawer on every view.
 * Without a session (the gateway answers 401) it shows the sign-in panel instead; a session that
 * ends while the page is open (token revoked or expired) brings the panel back.
 */
import "./style.css";
import { FLEET_CHANGES, INBOX_CHANGES, INBOX_QUERY, QUEUE_QUERY } from "./api/documents.js";
import { AGENTS_PAGE, type AgentsPageResult } from "./api/agents-documents.js";
import { request } from "./api/http.js";
import { defaultWsUrl, LiveConnection, type ConnectionState } from "./api/live.js";
import type { FleetChange, InboxChanged, InboxSnapshot, QueueSnapshot } from "./api/types.js";
import { AgentsState, agentsHref, parseQueryString, type AgentsQuery } from "./state/agents.js";
import { FleetState } from "./state/fleet.js";
import { InboxRefresher, InboxState } from "./state/inbox.js";
import { QueueRefresher, QueueState } from "./state/queue.js";
import { AgentsTable } from "./ui/agents-table.js";
import { AgentView } from "./ui/agent-view.js";
import { showConnection } from "./ui/announce.js";
import { byId, h } from "./ui/dom.js";
import { EnqueueForm } from "./ui/enqueue-form.js";
import { InboxBadge, InboxView } from "./ui/inbox-view.js";
import { LaunchDrawer } from "./ui/launch-drawer.js";
import { LaunchForm } from "./ui/launch-form.js";
import { LaunchPanel } from "./ui/launch-panel.js";
import { OverviewView } from "./ui/overview-view.js";
import { QueueView } from "./ui/queue-view.js";
import type { ActionSink } from "./ui/launch-actions.js";
import { currentSession, signOut, type Viewer } from "./api/session.js";
import { renderSignIn } from "./ui/sign-in.js";

/** How often the age column is redrawn, ms (local clock only, no requests). */
const AGE_TICK_MS = 5_000;

/** Pause before following the fleet again after the gateway refused or ended the subscription, ms. */
const FLEET_RETRY_MS = 3_000;

/** How often the queue's ages and next fire times are redrawn, ms (local clock only, no requests). */
const QUEUE_TICK_MS = 1_000;

/** What the URL hash opens. */
type Route =
  | { view: "overview" }
  | { view: "agents"; agentId: string | null; query: AgentsQuery | null }
  | { view: "queue"; launchId: string | null }
  | { view: "inbox"; itemId: string | null };

/** The route of a URL hash (anything unknown is the overview). */
function routeOf(hash: string): Route {
  // `#/agent/<id>` and `#/agent/<id>/<tab>` (the agent view's tab: timeline, changes, report).
  const agent = /^#\/agent\/([0-9A-Za-z_-]+)(?:\/(?:timeline|changes|report))?\/?$/.exec(hash);
  if (agent) return { view: "agents", agentId: agent[1] ?? null, query: null };
  const agents = /^#\/agents\/?(?:\?(.*))?$/.exec(hash);
  if (agents) return { view: "agents", agentId: null, query: parseQueryString(agents[1] ?? "") };
  const queue = /^#\/queue(?:\/([0-9A-Za-z_-]+))?\/?$/.exec(hash);
  if (queue) return { view: "queue", launchId: queue[1] ?? null };
  const inbox = /^#\/inbox(?:\/([0-9A-Za-z_-]+))?\/?$/.exec(hash);
  if (inbox) return { view: "inbox", itemId: inbox[1] ?? null };
  return { view: "overview" };
}

/** Document titles by view. */
const TITLES: Readonly<Record<Route["view"], string>> = {
  overview: "Prospero",
  agents: "Agents · Prospero",
  queue: "Queue · Prospero",
  inbox: "Inbox · Prospero",
};

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
  byId("main-nav", HTMLElement).hidden = true;
  byId("launch-open", HTMLButtonElement).hidden = true;
  showConnection("signed-out");
  const panel = byId("sign-in", HTMLElement);
  panel.hidden = false;
  renderSignIn(panel, reason, () => location.reload());
}

function showViewer(viewer: Viewer): void {
  const scope = viewer.workspaces ? ` · ${viewer.workspaces.join(", ")}` : "";
  byId("whoami-name", HTMLSpanElement).textContent = `${viewer.name} (${viewer.role.toLowerCase()}${scope})`;
  byId("whoami", HTMLParagraphElement).hidden = false;
  byId("main-nav", HTMLElement).hidden = false;
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
  start(session.viewer);
}

function start(viewer: Viewer): void {
  const fleet = new FleetState();
  // Set below; the connection reports its first state while being built.
  let onConnection: (state: ConnectionState) => void = () => {};
  const live = new LiveConnection(
    defaultWsUrl(),
    (state) => {
      showConnection(state);
      onConnection(state);
    },
    (reason) => showSignIn(`Signed out by the gateway: ${reason}.`),
  );
  const fleetError = byId("fleet-error", HTMLParagraphElement);
  const overview = new OverviewView(byId("overview", HTMLDivElement), fleet, viewer);
  const agents = new AgentsState((vars) => request<AgentsPageResult>(AGENTS_PAGE, { ...vars }));
  /** The agents table's question changed (a control): put it in the URL (typing: no history entry). */
  const navigateAgents = (q: AgentsQuery, opts: { replace?: boolean } = {}): void => {
    const href = agentsHref(q);
    if (opts.replace) {
      history.replaceState(history.state, "", href);
      agents.setQuery(q);
    } else location.hash = href;
  };
  const table = new AgentsTable(byId("agents", HTMLDivElement), agents, fleet, navigateAgents);
  const view = new AgentView(byId("agent-view", HTMLElement), fleet, live);
  const drawer = new LaunchDrawer(
    byId("launch-drawer", HTMLDialogElement),
    byId("launch-open", HTMLButtonElement),
    viewer,
  );
  const launch = new LaunchForm(drawer.body, fleet);
  onConnection = (state) => {
    const connected = state === "live";
    document.body.dataset["connection"] = state;
    overview.setConnected(connected);
    table.setConnected(connected);
  };
  onConnection("connecting");
  // The queue view: its state, the snapshot reader, the tables and the launch panel.
  const queue = new QueueState();
  const sink: ActionSink = {
    launch: (l) => {
      queue.applyLaunch(l);
      refresher.request();
    },
    schedule: (sch) => {
      queue.applySchedule(sch);
      refresher.request();
    },
    report: (message) => queueView.report(message),
  };
  const refresher = new QueueRefresher(
    queue,
    () => request<QueueSnapshot>(QUEUE_QUERY),
    (message) => queueView.report(message === null ? null : `The queue could not be read: ${message}`),
  );
  const enqueue = new EnqueueForm(fleet, viewer, sink.launch);
  const mayEnqueue = viewer.role !== "VIEWER";
  // The queue view's content is in the page only while it is shown (the fleet view's form has
  // fields of the same names; one view's controls at a time).
  const queueContent = h("div", { class: "view-content" });
  const panelContent = h("div", { class: "view-content" });
  const queueView = new QueueView(queueContent, queue, viewer, mayEnqueue ? enqueue.element : null, sink);
  const panel = new LaunchPanel(panelContent, viewer, sink);
  queue.onChange((update) => {
    queueView.render();
    if (update.type === "launch") panel.changed(update.launchId);
  });

  // The inbox: its state, the snapshot reader, the view and the header badge.
  const inbox = new InboxState();
  const inboxView = new InboxView(byId("inbox", HTMLDivElement), inbox, viewer);
  new InboxBadge(byId("inbox-count", HTMLSpanElement), inbox);
  const inboxRefresher = new InboxRefresher(
    inbox,
    () => request<InboxSnapshot>(INBOX_QUERY),
    (message) => inboxView.report(message === null ? null : `The inbox could not be read: ${message}`),
  );

  fleet.onChange((update) => {
    if (update.type === "seeded" || update.type === "workspace") {
      launch.syncWorkspaces();
      enqueue.syncWorkspaces();
      table.syncWorkspaces();
    }
    view.refresh();
  });

  /** A fleetChanges item for the queue: apply what it carries, then read the queue again. */
  const followQueue = (change: FleetChange): void => {
    switch (change.__typename) {
      case "LaunchChanged":
        queue.applyLaunch(change.launch);
        refresher.request();
        return;
      case "ScheduleChanged":
        queue.applySchedule(change.schedule);
        if (change.firedLaunch) queue.applyLaunch(change.firedLaunch);
        refresher.request();
        return;
      case "FleetSeedComplete":
        // A new seed (first subscription or a reconnect): launches are not part of it, and the
        // inbox subscription (started before the fleet's on the same connection) has no seed.
        refresher.request();
        panel.reload();
        inboxRefresher.request();
        return;
      case "AgentAppeared":
      case "AgentStatusChanged":
      case "AgentGone":
        // Caps count every live run, the queue's or not.
        if (!("seed" in change && change.seed)) refresher.request();
        return;
      default:
        return;
    }
  };

  /** Follow the inbox live; it is read again after each (re)subscription (see FleetSeedComplete). */
  const followInbox = (): void => {
    live.subscribe<{ inboxChanges: InboxChanged }>({
      query: INBOX_CHANGES,
      variables: () => ({}),
      next: (data) => inbox.applyChange(data.inboxChanges),
      error: (message) => {
        inboxView.report(`The gateway refused the inbox subscription: ${message}. Retrying…`);
        window.setTimeout(followInbox, FLEET_RETRY_MS);
      },
      complete: () => window.setTimeout(followInbox, FLEET_RETRY_MS),
    });
    // Changes before this subscription reached the gateway are in the next read.
    inboxRefresher.request();
  };
  // First, so that a reconnect subscribes it before the fleet re-seeds (the read follows the seed).
  followInbox();

  const followFleet = (): void => {
    live.subscribe<{ fleetChanges: FleetChange }>({
      query: FLEET_CHANGES,
      variables: () => ({}),
      next: (data) => {
        if (data.fleetChanges.__typename === "FleetSeedComplete") fleetError.hidden = true;
        fleet.apply(data.fleetChanges);
        followQueue(data.fleetChanges);
        agents.follow(data.fleetChanges);
        overview.onFleetChange(data.fleetChanges);
        view.onFleetChange(data.fleetChanges);
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

  const nav = byId("main-nav", HTMLElement);
  const containers: Readonly<Record<Route["view"], readonly string[]>> = {
    overview: ["overview"],
    agents: ["agents-page", "agent-view"],
    queue: ["queue", "launch-view"],
    inbox: ["inbox"],
  };
  let shown: Route["view"] | null = null;
  const route = (): Route => {
    const r = routeOf(location.hash);
    const onQueue = r.view === "queue";
    for (const [v, ids] of Object.entries(containers))
      for (const id of ids) byId(id, HTMLElement).hidden = v !== r.view;
    // The queue view's content is in the page only while it is shown (one view's forms at a time).
    for (const [id, content] of [
      ["queue", queueContent],
      ["launch-view", panelContent],
    ] as const) {
      const box = byId(id, HTMLElement);
      if (onQueue && content.parentNode !== box) box.append(content);
      if (!onQueue) content.remove();
    }
    for (const a of nav.querySelectorAll<HTMLAnchorElement>("a[data-view]")) {
      if (a.dataset["view"] === r.view) a.setAttribute("aria-current", "page");
      else a.removeAttribute("aria-current");
    }
    document.title = TITLES[r.view];
    const agentId = r.view === "agents" ? r.agentId : null;
    // `#/agent/<id>` keeps the table's last question; `#/agents?…` asks its own.
    if (r.view === "agents" && r.query !== null) agents.setQuery(r.query);
    agents.setActive(r.view === "agents");
    overview.setActive(r.view === "overview");
    view.show(agentId);
    table.select(agentId);
    panel.show(r.view === "queue" ? r.launchId : null);
    inboxView.select(r.view === "inbox" ? r.itemId : null);
    refresher.setActive(onQueue);
    if (onQueue) queueView.render();
    drawer.close();
    return r;
  };
  window.addEventListener("hashchange", () => {
    const previous = shown;
    const r = route();
    shown = r.view;
    // The operator chose an agent or a launch, or another view: take keyboard focus there (on
    // narrow screens the panel is far below). A new question of the same table keeps the focus
    // on the control that asked it.
    if (r.view === "agents" && r.agentId !== null) view.focus();
    else if (r.view === "queue" && r.launchId !== null) panel.focus();
    else if (r.view === "inbox") inboxView.focus();
    else if (r.view !== previous)
      (r.view === "queue" ? queueView.heading : byId("main", HTMLElement)).focus();
  });
  const first = route();
  shown = first.view;
  // A link to one item (e.g. from a webhook message): focus it once it is listed.
  if (first.view === "inbox" && first.itemId !== null) inboxView.focus();
  window.setInterval(() => {
    table.tick();
    if (shown === "inbox") inboxView.tick();
  }, AGE_TICK_MS);
  window.setInterval(() => {
    if (shown === "queue") queueView.tick();
  }, QUEUE_TICK_MS);
}

void boot();
