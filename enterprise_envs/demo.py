"""``enterprise-envs demo``: oracle episodes of ITSM-v0, with the dialogue and the verdict.

The oracle plays each scenario's reference solution through ``gymnasium.make("ITSM-v0")``
against the rule-based simulated user; the verifier then judges the back-end's state.
"""

from __future__ import annotations

import json
import time
from typing import IO

import gymnasium

from enterprise_envs import registry
from enterprise_envs.agents import OracleAgent

_WIDTH = 160


def _short(text: str, width: int = _WIDTH) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def run_demo(
    episodes: int = 3, seed: int = 0, scenario: str | None = None, out: IO[str] | None = None
) -> int:
    """Play ``episodes`` oracle episodes and print them.

    Returns:
        Process exit status: 0 when every episode succeeded.
    """
    import sys

    out = out or sys.stdout
    kwargs = {"scenario": scenario} if scenario else {}
    # A scenario is played in the suite that serves it; the default demo is the service desk's.
    env_id = registry.suite_serving(scenario).env_id if scenario else "ITSM-v0"
    env = gymnasium.make(env_id, **kwargs)
    failures = 0
    for index in range(episodes):
        began = time.perf_counter()
        observation, info = env.reset(seed=seed + index)
        agent = OracleAgent()
        agent.reset(env, info)
        out.write(
            f"\n=== episode {index + 1}: {info['scenario']} (seed {seed + index}) ===\n{info['title']}\n"
        )
        out.write(f"user: {_short(observation['content'])}\n")
        done, final, reward = False, {}, 0.0
        while not done:
            action = agent.act(observation)
            if "tool" in action:
                out.write(f"agent -> {action['tool']}({_short(json.dumps(action['arguments']), 100)})\n")
            elif "message" in action:
                out.write(f"agent: {_short(action['message'])}\n")
            else:
                out.write("agent ends the conversation\n")
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
