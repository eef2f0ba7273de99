"""``--max-tokens-total``: every token the APIs report (the model's and the judge's, input and
output) counts against one budget. Once it is reached no model request starts: a run that
was going stops before its next request (it is not recorded: `agent --resume` runs it again),
no new run starts, and the bundle keeps every run that finished, marked incomplete.
``--max-tokens-per-model``: each model's own replies count against a budget of its own too;
once one is reached, that model's runs stop the same way and the other models go on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcpaql_conformance.agent.providers import Conversation, Provider, Reply, ToolCall


class BudgetReached(Exception):  # a stop, not an error: the runs end cleanly
    """The token budget is spent: the run stops before its next model request."""


@dataclass
class Budget:
    limit: int | None  # None: no budget
    used: int = 0  # tokens reported so far (an API that reports none is not metered)
    owner: str = ""  # whose budget: a model's name (its share), or "" (every model's and the judge's)

    @property
    def reached(self) -> bool:
        return self.limit is not None and self.used >= self.limit

    @property
    def reason(self) -> str:
        whose = f"{self.owner}'s token budget" if self.owner else "token budget"
        return f"{whose} of {self.limit} reached, {self.used} tokens used"

    def count(self, reply: Reply) -> None:
        for tokens in (reply.input_tokens, reply.output_tokens):
            if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens > 0:
                self.used += tokens


class MeteredConversation(Conversation):
    """A conversation whose replies are counted, and refused once the budget is reached."""

    def __init__(self, inner: Conversation, budgets: tuple[Budget, ...]) -> None:
        self.inner, self.budgets = inner, budgets

    @property
    def json_reply(self) -> bool:  # the judge sets it on the conversation it is given
        return self.inner.json_reply

    @json_reply.setter
    def json_reply(self, value: bool) -> None:
        self.inner.json_reply = value

    async def reply(self) -> Reply:
        spent = next((budget for budget in self.budgets if budget.reached), None)
        if spent is not None:
            raise BudgetReached(spent.reason)
        reply = await self.inner.reply()
        for budget in self.budgets:
            budget.count(reply)
        return reply

    def add_tool_results(self, results: list[tuple[ToolCall, str]]) -> None:
        self.inner.add_tool_results(results)

    def add_user(self, text: str) -> None:
        self.inner.add_user(text)


class MeteredProvider(Provider):
    """A provider whose conversations are metered against ``budgets`` (the SDK client stays the
    inner one's)."""

    def __init__(self, inner: Provider, budgets: tuple[Budget, ...]) -> None:
        super().__init__(inner.endpoint)
        self.inner, self.budgets = inner, budgets
        self.errors = inner.errors

    def conversation(self, system: str, user: str, tools: list[dict[str, Any]]) -> Conversation:
        return MeteredConversation(self.inner.conversation(system, user, tools), self.budgets)

    async def aclose(self) -> None:
        await self.inner.aclose()

    def describe(self) -> str:
        return self.inner.describe()


def metered(provider: Provider, *budgets: Budget) -> Provider:
    """``provider`` metered against the budgets that have a limit (itself when none has)."""
    kept = tuple(budget for budget in budgets if budget.limit is not None)
    return MeteredProvider(provider, kept) if kept else provider


class Stops:
    """What may stop a model's runs before the plan is done: the token budgets, one for every
    model and the judge (``--max-tokens-total``) and one per model (``--max-tokens-per-model``),
    against which ``models`` and ``judge`` are metered; ``gone``: the models that stopped
    answering mid-run (with others, the others went on) or could not be used, and why."""

    def __init__(
        self, total: int | None, per_model: int | None, models: dict[str, Provider], judge: Provider | None
    ) -> None:
        self.gone: dict[str, str] = {}
        self.total = Budget(total)
        self.own = {name: Budget(per_model, owner=name) for name in models}
        self.models = {name: metered(provider, self.total, self.own[name]) for name, provider in models.items()}
        self.judge = metered(judge, self.total) if judge is not None else None

    @property
    def reason(self) -> str | None:
        """Why runs are missing (None: nothing stopped them)."""
        if self.total.reached:
            return self.total.reason
        spent = [budget.reason for budget in self.own.values() if budget.reached]
        spent += [f"{model} could not go on ({why})" for model, why in self.gone.items()]
        return "; ".join(spent) or None
