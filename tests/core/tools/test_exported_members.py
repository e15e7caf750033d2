from __future__ import annotations

import ostinato
import ostinato.tools

TOOLS_PUBLIC = {
    "DONE_RESULT",
    "ApprovalDecision",
    "ApprovalKind",
    "ApprovalPolicy",
    "ApprovalRequest",
    "ApprovalSettings",
    "Approver",
    "PendingToolCalls",
    "ResumedTurn",
    # A call that asks the user for input while it runs (an MCP elicitation).
    "InputAnswer",
    "InputRequest",
    "ToolInputRequired",
    "input_answer",
    "report_progress",
    "areport_progress",
    # Effect classes and what the loop does with them.
    "EffectPolicy",
    "InDoubtRule",
    "Reconcile",
    "ToolEffect",
    "approve_effects",
    "TOOL_SPEC_ATTRIBUTE",
    "DefaultToolCallingManager",
    "DefaultToolCallingManagerBuilder",
    "DefaultToolExecutionExceptionProcessor",
    "DelegatingToolCallbackResolver",
    "FunctionToolCallback",
    "LimitBehavior",
    "LimitBreach",
    "StaticToolCallbackResolver",
    "ToolCallLimits",
    "ToolCallback",
    "ToolCallbackProvider",
    "ToolCallbackResolver",
    "ToolCallingManager",
    "ToolContext",
    "ToolDefinition",
    "ToolExecutionExceptionProcessor",
    "ToolExecutionResult",
    "ToolMetadata",
    "ToolSpec",
    "count_prior_tool_calls",
    "json_schema_for",
    "tool",
    "tool_call_limit_generation",
    "tool_callbacks",
    "tool_error_text",
    "tool_result_to_text",
    "tool_spec_of",
}


def test_tools_exports_exactly_its_public_names() -> None:
    assert set(ostinato.tools.__all__) == TOOLS_PUBLIC
    assert len(ostinato.tools.__all__) == len(TOOLS_PUBLIC)
    for name in TOOLS_PUBLIC:
        assert getattr(ostinato.tools, name) is not None


def test_public_names_are_documented() -> None:
    for name in TOOLS_PUBLIC:
        member = getattr(ostinato.tools, name)
        if callable(member):
            assert member.__doc__, name


def test_the_package_root_reexports_the_everyday_tool_names() -> None:
    for name in ("tool", "tool_callbacks", "DefaultToolCallingManager"):
        assert name in ostinato.__all__
        assert getattr(ostinato, name) is getattr(ostinato.tools, name)
