"""``enterprise-envs demo``: episodes of ITSM-v0, with the dialogue and the verdict.

By default the oracle plays each scenario's reference solution through
``gymnasium.make("ITSM-v0")`` against the rule-based simulated user; ``--agent llm`` puts a model
in its place. The verifier then judges the back-end's state.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import IO, Any

import gymnasium

from enterprise_envs import registry
from enterprise_envs.actions import ActionError, TurnAction, parse_action

_WIDTH = 160


def _short(text: str, width: int = _WIDTH) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _describe(action: Any) -> list[str]:
    """What the agent did, one line per act (a turn may carry text and several calls)."""
    try:
        parsed = parse_action(action)
    except ActionError as error:
        return [f"agent (refused: {_short(str(error), 100)})"]
    if isinstance(parsed, TurnAction):
        lines = [f"agent (aside): {_short(parsed.text)}"] if parsed.text else []
        return lines + [f"agent -> {call.name}({_short(call.arguments, 100)})" for call in parsed.calls]
    if hasattr(parsed, "name"):
        return [f"agent -> {parsed.name}({_short(json.dumps(parsed.arguments), 100)})"]
    if hasattr(parsed, "text"):
        return [f"agent: {_short(parsed.text)}"]
    return ["agent ends the conversation"]


def run_demo(
    episodes: int = 3,
    seed: int = 0,
    scenario: str | None = None,
    out: IO[str] | None = None,
    agent: str = "oracle",
    agent_options: Mapping[str, Any] | None = None,
    env_kwargs: Mapping[str, Any] | None = None,
) -> int:
    """Play ``episodes`` episodes and print them.

    Args:
        episodes: How many.
        seed: First seed.
        scenario: A scenario id or tag (default: any of ITSM-v0's).
        out: Where to print (stdout).
        agent: A key of :data:`enterprise_envs.runner.AGENTS`.
        agent_options: The agent's options (the LLM agent's model and endpoint).
        env_kwargs: Extra ``gymnasium.make`` options (the simulated user).

    Returns:
        Process exit status: 0 when every episode succeeded.
    """
    import sys

    from enterprise_envs.agents import AgentInfrastructureError
    from enterprise_envs.runner import AGENTS

    out = out or sys.stdout
    kwargs = {**(env_kwargs or {}), **({"scenario": scenario} if scenario else {})}
    # A scenario is played in the suite that serves it; the default demo is the service desk's.
    env_id = registry.suite_serving(scenario).env_id if scenario else "ITSM-v0"
    env = gymnasium.make(env_id, **kwargs)
    failures = 0
    for index in range(episodes):
        began = time.perf_counter()
        observation, info = env.reset(seed=seed + index)
        player = AGENTS[agent](seed + index, **(agent_options or {}))
        player.reset(env, info)
        out.write(
            f"\n=== episode {index + 1}: {info['scenario']} (seed {seed + index}) ===\n{info['title']}\n"
        )
        out.write(f"user: {_short(observation['content'])}\n")
        done, final, reward = False, {}, 0.0
        while not done:
            try:
                action = player.act(observation)
            except AgentInfrastructureError as error:
                out.write(f"the agent's endpoint failed: {error}\n")
                final = {"outcome": {"kind": "invalid", "reason": "agent_infrastructure"}, "steps": 0}
                break
            for line in _describe(action):
                out.write(line + "\n")
            observation, reward, terminated, truncated, final = env.step(action)
            done = terminated or truncated
            if observation["role"] == "tool":
                out.write(f"   <- {_short(observation['content'], 120)}\n")
            elif observation["content"]:
                out.write(f"{observation['role']}: {_short(observation['content'])}\n")
        outcome = final["outcome"]
        out.write(
            f"outcome: {outcome['kind']} ({outcome['reason']}), reward {reward}, "
            f"{final['steps']} steps in {(time.perf_counter() - began) * 1000:.0f} ms\n"
        )
        verdict = final.get("verdict") or {}
        for requirement in verdict.get("requirements", []):
            mark = "ok" if requirement["passed"] else "FAIL"
            out.write(f"  [{mark}] {requirement['kind']}: {requirement['label']}\n")
        failures += outcome["kind"] != "success"
    env.close()
    out.write(f"\n{episodes - failures}/{episodes} episodes verified as success.\n")
    return 0 if failures == 0 else 1
