/**
 * Prospero's dashboard: the fleet live through `fleetChanges`, one agent's timeline live through
 * `agentEvents`, the launch queue (refreshed after the `LaunchChanged` / `ScheduleChanged` items
 * of the same subscription), the operator inbox live through `inboxChanges` (its count in the
 * header on every view), mutations over HTTP. The route is the URL hash: `#/agent/<id>` opens
 * an agent, `#/queue` the queue view and `#/queue/<launchId>` a launch in it, `#/inbox` the inbox
 * and `#/inbox/<itemId>` one item in it.
 * Without a session (the gateway answers 401) it shows the sign-in panel instead; a session that
 * ends while the page is open (token revoked or expired) brings the panel back.
 */
import "./style.css";
import { FLEET_CHANGES, INBOX_CHANGES, INBOX_QUERY, QUEUE_QUERY } from "./api/documents.js";
import { request } from "./api/http.js";
import { defaultWsUrl, LiveConnection } from "./api/live.js";
import type { FleetChange, InboxChanged, InboxSnapshot, QueueSnapshot } from "./api/types.js";
import { FleetState } from "./state/fleet.js";
import { InboxRefresher, InboxState } from "./state/inbox.js";
import { QueueRefresher, QueueState } from "./state/queue.js";
import { AgentsTable } from "./ui/agents-table.js";
import { AgentView } from "./ui/agent-view.js";
import { showConnection } from "./ui/announce.js";
import { byId, h } from "./ui/dom.js";
import { EnqueueForm } from "./ui/enqueue-form.js";
import { InboxBadge, InboxView } from "./ui/inbox-view.js";
import { LaunchForm } from "./ui/launch-form.js";
import { LaunchPanel } from "./ui/launch-panel.js";
import { QueueView } from "./ui/queue-view.js";
import type { ActionSink } from "./ui/launch-actions.js";
import { renderWorkspaces } from "./ui/workspaces.js";
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
  | { view: "fleet"; agentId: string | null }
  | { view: "queue"; launchId: string | null }
  | { view: "inbox"; itemId: string | null };

function currentRoute(): Route {
  const agent = /^#\/agent\/([0-9A-Za-z_-]+)$/.exec(location.hash);
  if (agent) return { view: "fleet", agentId: agent[1] ?? null };
  const queue = /^#\/queue(?:\/([0-9A-Za-z_-]+))?\/?$/.exec(location.hash);
  if (queue) return { view: "queue", launchId: queue[1] ?? null };
  const inbox = /^#\/inbox(?:\/([0-9A-Za-z_-]+))?\/?$/.exec(location.hash);
  if (inbox) return { view: "inbox", itemId: inbox[1] ?? null };
  return { view: "fleet", agentId: null };
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
  byId("main-nav", HTMLElement).hidden = true;
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
  const live = new LiveConnection(defaultWsUrl(), showConnection, (reason) =>
    showSignIn(`Signed out by the gateway: ${reason}.`),
  );
  const workspaces = byId("workspaces", HTMLDivElement);
  const fleetError = byId("fleet-error", HTMLParagraphElement);
  const table = new AgentsTable(byId("agents", HTMLDivElement));
  const view = new AgentView(byId("agent-view", HTMLElement), fleet, live);
  const launch = new LaunchForm(byId("launch", HTMLDivElement), fleet);

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
    renderWorkspaces(workspaces, fleet);
    table.sync(fleet);
    if (update.type === "seeded" || update.type === "workspace") {
      launch.syncWorkspaces();
      enqueue.syncWorkspaces();
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
  let shown: Route["view"] | null = null;
  const route = (): Route => {
    const r = currentRoute();
    const onQueue = r.view === "queue";
    const onFleet = r.view === "fleet";
    byId("fleet", HTMLDivElement).hidden = !onFleet;
    byId("agent-view", HTMLElement).hidden = !onFleet;
    byId("inbox", HTMLDivElement).hidden = r.view !== "inbox";
    for (const [id, content] of [
      ["queue", queueContent],
      ["launch-view", panelContent],
    ] as const) {
      const box = byId(id, HTMLElement);
      box.hidden = !onQueue;
      if (onQueue && content.parentNode !== box) box.append(content);
      if (!onQueue) content.remove();
    }
    for (const a of nav.querySelectorAll<HTMLAnchorElement>("a[data-view]")) {
      if (a.dataset["view"] === r.view) a.setAttribute("aria-current", "page");
      else a.removeAttribute("aria-current");
    }
    document.title = onQueue ? "Queue · Prospero" : r.view === "inbox" ? "Inbox · Prospero" : "Prospero";
    view.show(r.view === "fleet" ? r.agentId : null);
    table.select(r.view === "fleet" ? r.agentId : null);
    panel.show(r.view === "queue" ? r.launchId : null);
    inboxView.select(r.view === "inbox" ? r.itemId : null);
    refresher.setActive(onQueue);
    if (onQueue) queueView.render();
    return r;
  };
  window.addEventListener("hashchange", () => {
    const previous = shown;
    const r = route();
    shown = r.view;
    // The operator chose an agent or a launch, or another view: take keyboard focus there (on
    // narrow screens the panel is far below).
    if (r.view === "fleet" && r.agentId !== null) view.focus();
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
