
      export type PossibleTypesResultData = {
  "possibleTypes": {
    "AcknowledgeInboxItemResult": [
      "AcknowledgeInboxItemPayload",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "AddWorkspaceResult": [
      "AddWorkspacePayload",
      "ConflictError",
      "ForbiddenError",
      "ProviderMisconfiguredError",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "AnswerInboxItemResult": [
      "AnswerInboxItemPayload",
      "CalibandNotInstalledError",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "UnauthenticatedError",
      "UnreachableError",
      "ValidationError"
    ],
    "ApplyChangesResult": [
      "ApplyChangesPayload",
      "ConflictError",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "ApproveInboxItemResult": [
      "ApproveInboxItemPayload",
      "CalibandNotInstalledError",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "UnauthenticatedError",
      "UnreachableError",
      "ValidationError"
    ],
    "CancelLaunchResult": [
      "CalibandNotInstalledError",
      "CancelLaunchPayload",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "UnauthenticatedError",
      "UnreachableError",
      "ValidationError"
    ],
    "CreateScheduleResult": [
      "CreateSchedulePayload",
      "ForbiddenError",
      "NotFoundError",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "CreateTokenResult": [
      "ConflictError",
      "CreateTokenPayload",
      "ForbiddenError",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "CreateWebhookResult": [
      "CreateWebhookPayload",
      "ForbiddenError",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "DeleteScheduleResult": [
      "DeleteSchedulePayload",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "DeleteWebhookResult": [
      "DeleteWebhookPayload",
      "ForbiddenError",
      "NotFoundError",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "DismissInboxItemResult": [
      "DismissInboxItemPayload",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "DrainAgentResult": [
      "CalibandNotInstalledError",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "DrainAgentPayload",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "UnauthenticatedError",
      "UnreachableError",
      "ValidationError"
    ],
    "EndAgentInputResult": [
      "CalibandNotInstalledError",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "EndAgentInputPayload",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "UnauthenticatedError",
      "UnreachableError",
      "ValidationError"
    ],
    "EnqueueLaunchResult": [
      "ConflictError",
      "EnqueueLaunchPayload",
      "ForbiddenError",
      "NotFoundError",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "Error": [
      "CalibandNotInstalledError",
      "ConflictError",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "ProviderMisconfiguredError",
      "UnauthenticatedError",
      "UnreachableError",
      "ValidationError"
    ],
    "FleetChange": [
      "AgentAppeared",
      "AgentGone",
      "AgentStatusChanged",
      "ChangesCaptured",
      "FleetSeedComplete",
      "LaunchChanged",
      "ScheduleChanged",
      "WorkspaceHealthChanged"
    ],
    "FleetEvent": [
      "AgentDiscoveredEvent",
      "AgentFinishedEvent",
      "AgentGoneEvent",
      "AgentSpawnedEvent",
      "ChangesCapturedEvent",
      "GapEvent",
      "IngestGapEvent",
      "InputEndedEvent",
      "InputFailedEvent",
      "InputSentEvent",
      "LaunchChangedEvent",
      "OutputEvent",
      "ScheduleChangedEvent",
      "StatusChangedEvent",
      "StorePersistFailedEvent",
      "ToolFinishedEvent",
      "ToolStartedEvent",
      "TurnCompletedEvent",
      "TurnStartedEvent",
      "WorkerLogEvent",
      "WorkspaceHealthEvent"
    ],
    "KillAgentResult": [
      "CalibandNotInstalledError",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "ForbiddenError",
      "InvalidStateError",
      "KillAgentPayload",
      "NotFoundError",
      "UnauthenticatedError",
      "UnreachableError",
      "ValidationError"
    ],
    "Node": [
      "Agent",
      "AgentDiscoveredEvent",
      "AgentFinishedEvent",
      "AgentGoneEvent",
      "AgentSpawnedEvent",
      "ApiToken",
      "AuditEntry",
      "ChangesCapturedEvent",
      "GapEvent",
      "InboxItem",
      "IngestGapEvent",
      "InputEndedEvent",
      "InputFailedEvent",
      "InputSentEvent",
      "Launch",
      "LaunchChangedEvent",
      "OutputEvent",
      "Schedule",
      "ScheduleChangedEvent",
      "StatusChangedEvent",
      "StorePersistFailedEvent",
      "ToolFinishedEvent",
      "ToolStartedEvent",
      "TurnCompletedEvent",
      "TurnStartedEvent",
      "Webhook",
      "WebhookDelivery",
      "WorkerLogEvent",
      "Workspace",
      "WorkspaceHealthEvent"
    ],
    "PauseScheduleResult": [
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "PauseSchedulePayload",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "RemoveAgentResult": [
      "CalibandNotInstalledError",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "RemoveAgentPayload",
      "UnauthenticatedError",
      "UnreachableError",
      "ValidationError"
    ],
    "RemoveWorkspaceResult": [
      "ForbiddenError",
      "NotFoundError",
      "RemoveWorkspacePayload",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "RespawnAgentResult": [
      "CalibandNotInstalledError",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "ProviderMisconfiguredError",
      "RespawnAgentPayload",
      "UnauthenticatedError",
      "UnreachableError",
      "ValidationError"
    ],
    "RestartWorkspaceDaemonResult": [
      "CalibandNotInstalledError",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "RestartWorkspaceDaemonPayload",
      "UnauthenticatedError",
      "UnreachableError",
      "ValidationError"
    ],
    "ResumeScheduleResult": [
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "ResumeSchedulePayload",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "RevokeTokenResult": [
      "ForbiddenError",
      "NotFoundError",
      "RevokeTokenPayload",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "RunScheduleResult": [
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "RunSchedulePayload",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "SendAgentInputResult": [
      "CalibandNotInstalledError",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "SendAgentInputPayload",
      "UnauthenticatedError",
      "UnreachableError",
      "ValidationError"
    ],
    "SetBudgetResult": [
      "ForbiddenError",
      "NotFoundError",
      "SetBudgetPayload",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "SetCapResult": [
      "ForbiddenError",
      "NotFoundError",
      "SetCapPayload",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "SetChangeCaptureResult": [
      "ForbiddenError",
      "NotFoundError",
      "SetChangeCapturePayload",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "SetHealthThresholdResult": [
      "ForbiddenError",
      "SetHealthThresholdPayload",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "SetWorkspaceLaunchTimeoutResult": [
      "ForbiddenError",
      "NotFoundError",
      "SetWorkspaceLaunchTimeoutPayload",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "SnoozeInboxItemResult": [
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "SnoozeInboxItemPayload",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "SpawnAgentResult": [
      "CalibandNotInstalledError",
      "ConflictError",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "ProviderMisconfiguredError",
      "SpawnAgentPayload",
      "UnauthenticatedError",
      "UnreachableError",
      "ValidationError"
    ],
    "TestWebhookResult": [
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "TestWebhookPayload",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "UpdateWebhookResult": [
      "ForbiddenError",
      "NotFoundError",
      "UnauthenticatedError",
      "UpdateWebhookPayload",
      "ValidationError"
    ],
    "UpdateWorkspaceConfigResult": [
      "CalibandNotInstalledError",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "ForbiddenError",
      "NotFoundError",
      "ProviderMisconfiguredError",
      "UnauthenticatedError",
      "UnreachableError",
      "UpdateWorkspaceConfigPayload",
      "ValidationError"
    ]
  }
};
      const result: PossibleTypesResultData = {
  "possibleTypes": {
    "AcknowledgeInboxItemResult": [
      "AcknowledgeInboxItemPayload",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "AddWorkspaceResult": [
      "AddWorkspacePayload",
      "ConflictError",
      "ForbiddenError",
      "ProviderMisconfiguredError",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "AnswerInboxItemResult": [
      "AnswerInboxItemPayload",
      "CalibandNotInstalledError",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "UnauthenticatedError",
      "UnreachableError",
      "ValidationError"
    ],
    "ApplyChangesResult": [
      "ApplyChangesPayload",
      "ConflictError",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "ApproveInboxItemResult": [
      "ApproveInboxItemPayload",
      "CalibandNotInstalledError",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "UnauthenticatedError",
      "UnreachableError",
      "ValidationError"
    ],
    "CancelLaunchResult": [
      "CalibandNotInstalledError",
      "CancelLaunchPayload",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "UnauthenticatedError",
      "UnreachableError",
      "ValidationError"
    ],
    "CreateScheduleResult": [
      "CreateSchedulePayload",
      "ForbiddenError",
      "NotFoundError",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "CreateTokenResult": [
      "ConflictError",
      "CreateTokenPayload",
      "ForbiddenError",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "CreateWebhookResult": [
      "CreateWebhookPayload",
      "ForbiddenError",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "DeleteScheduleResult": [
      "DeleteSchedulePayload",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "DeleteWebhookResult": [
      "DeleteWebhookPayload",
      "ForbiddenError",
      "NotFoundError",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "DismissInboxItemResult": [
      "DismissInboxItemPayload",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "DrainAgentResult": [
      "CalibandNotInstalledError",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "DrainAgentPayload",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "UnauthenticatedError",
      "UnreachableError",
      "ValidationError"
    ],
    "EndAgentInputResult": [
      "CalibandNotInstalledError",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "EndAgentInputPayload",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "UnauthenticatedError",
      "UnreachableError",
      "ValidationError"
    ],
    "EnqueueLaunchResult": [
      "ConflictError",
      "EnqueueLaunchPayload",
      "ForbiddenError",
      "NotFoundError",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "Error": [
      "CalibandNotInstalledError",
      "ConflictError",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "ProviderMisconfiguredError",
      "UnauthenticatedError",
      "UnreachableError",
      "ValidationError"
    ],
    "FleetChange": [
      "AgentAppeared",
      "AgentGone",
      "AgentStatusChanged",
      "ChangesCaptured",
      "FleetSeedComplete",
      "LaunchChanged",
      "ScheduleChanged",
      "WorkspaceHealthChanged"
    ],
    "FleetEvent": [
      "AgentDiscoveredEvent",
      "AgentFinishedEvent",
      "AgentGoneEvent",
      "AgentSpawnedEvent",
      "ChangesCapturedEvent",
      "GapEvent",
      "IngestGapEvent",
      "InputEndedEvent",
      "InputFailedEvent",
      "InputSentEvent",
      "LaunchChangedEvent",
      "OutputEvent",
      "ScheduleChangedEvent",
      "StatusChangedEvent",
      "StorePersistFailedEvent",
      "ToolFinishedEvent",
      "ToolStartedEvent",
      "TurnCompletedEvent",
      "TurnStartedEvent",
      "WorkerLogEvent",
      "WorkspaceHealthEvent"
    ],
    "KillAgentResult": [
      "CalibandNotInstalledError",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "ForbiddenError",
      "InvalidStateError",
      "KillAgentPayload",
      "NotFoundError",
      "UnauthenticatedError",
      "UnreachableError",
      "ValidationError"
    ],
    "Node": [
      "Agent",
      "AgentDiscoveredEvent",
      "AgentFinishedEvent",
      "AgentGoneEvent",
      "AgentSpawnedEvent",
      "ApiToken",
      "AuditEntry",
      "ChangesCapturedEvent",
      "GapEvent",
      "InboxItem",
      "IngestGapEvent",
      "InputEndedEvent",
      "InputFailedEvent",
      "InputSentEvent",
      "Launch",
      "LaunchChangedEvent",
      "OutputEvent",
      "Schedule",
      "ScheduleChangedEvent",
      "StatusChangedEvent",
      "StorePersistFailedEvent",
      "ToolFinishedEvent",
      "ToolStartedEvent",
      "TurnCompletedEvent",
      "TurnStartedEvent",
      "Webhook",
      "WebhookDelivery",
      "WorkerLogEvent",
      "Workspace",
      "WorkspaceHealthEvent"
    ],
    "PauseScheduleResult": [
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "PauseSchedulePayload",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "RemoveAgentResult": [
      "CalibandNotInstalledError",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "RemoveAgentPayload",
      "UnauthenticatedError",
      "UnreachableError",
      "ValidationError"
    ],
    "RemoveWorkspaceResult": [
      "ForbiddenError",
      "NotFoundError",
      "RemoveWorkspacePayload",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "RespawnAgentResult": [
      "CalibandNotInstalledError",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "ProviderMisconfiguredError",
      "RespawnAgentPayload",
      "UnauthenticatedError",
      "UnreachableError",
      "ValidationError"
    ],
    "RestartWorkspaceDaemonResult": [
      "CalibandNotInstalledError",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "RestartWorkspaceDaemonPayload",
      "UnauthenticatedError",
      "UnreachableError",
      "ValidationError"
    ],
    "ResumeScheduleResult": [
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "ResumeSchedulePayload",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "RevokeTokenResult": [
      "ForbiddenError",
      "NotFoundError",
      "RevokeTokenPayload",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "RunScheduleResult": [
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "RunSchedulePayload",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "SendAgentInputResult": [
      "CalibandNotInstalledError",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "SendAgentInputPayload",
      "UnauthenticatedError",
      "UnreachableError",
      "ValidationError"
    ],
    "SetBudgetResult": [
      "ForbiddenError",
      "NotFoundError",
      "SetBudgetPayload",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "SetCapResult": [
      "ForbiddenError",
      "NotFoundError",
      "SetCapPayload",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "SetChangeCaptureResult": [
      "ForbiddenError",
      "NotFoundError",
      "SetChangeCapturePayload",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "SetHealthThresholdResult": [
      "ForbiddenError",
      "SetHealthThresholdPayload",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "SetWorkspaceLaunchTimeoutResult": [
      "ForbiddenError",
      "NotFoundError",
      "SetWorkspaceLaunchTimeoutPayload",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "SnoozeInboxItemResult": [
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "SnoozeInboxItemPayload",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "SpawnAgentResult": [
      "CalibandNotInstalledError",
      "ConflictError",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "ProviderMisconfiguredError",
      "SpawnAgentPayload",
      "UnauthenticatedError",
      "UnreachableError",
      "ValidationError"
    ],
    "TestWebhookResult": [
      "ForbiddenError",
      "InvalidStateError",
      "NotFoundError",
      "TestWebhookPayload",
      "UnauthenticatedError",
      "ValidationError"
    ],
    "UpdateWebhookResult": [
      "ForbiddenError",
      "NotFoundError",
      "UnauthenticatedError",
      "UpdateWebhookPayload",
      "ValidationError"
    ],
    "UpdateWorkspaceConfigResult": [
      "CalibandNotInstalledError",
      "DaemonRefusedError",
      "DaemonStartFailedError",
      "ForbiddenError",
      "NotFoundError",
      "ProviderMisconfiguredError",
      "UnauthenticatedError",
      "UnreachableError",
      "UpdateWorkspaceConfigPayload",
      "ValidationError"
    ]
  }
};
      export default result;
    