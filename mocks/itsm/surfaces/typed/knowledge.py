"""Typed knowledge tools: search published articles and read one."""

from __future__ import annotations

import re
from typing import Any

from enterprise_envs.mocks._core.backend import CallContext
from enterprise_envs.mocks._core.store import like_clause
from enterprise_envs.mocks._core.tools import Tool, ToolKind, obj, string
from enterprise_envs.mocks.itsm.errors import record_not_found
from enterprise_envs.mocks.itsm.services import records
from enterprise_envs.mocks.itsm.surfaces.typed.common import LIMIT, NUMBER, View, like, plain_text

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "can",
        "cannot",
        "do",
        "does",
        "for",
        "how",
        "i",
        "in",
        "is",
        "it",
        "my",
        "not",
        "of",
        "on",
        "or",
        "the",
        "to",
        "with",
    }
)
_STR = {"type": "string"}
_MAX_TERMS = 8
DEFAULT_LIMIT = 5


def _stem(word: str) -> str:
    """Crude suffix stripping so 'disconnects' finds 'disconnect' (terms match as substrings)."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def search_knowledge(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Published articles ranked by how many query words their title, keywords and text contain."""
    terms = [_stem(word) for word in _WORD.findall(args["query"].lower()) if word not in _STOP][:_MAX_TERMS]
    if not terms:
        return {"articles": []}
    text = "(short_description || ' ' || meta || ' ' || text)"
    score = " + ".join(f"({like_clause(text)})" for _ in terms)
    title = " + ".join(f"({like_clause('short_description')})" for _ in terms)
    patterns = tuple(like(term) for term in terms)
    rows = ctx.store.conn.execute(
        f"SELECT sys_id, ({score}) * 2 + ({title}) AS score FROM kb_knowledge "
        "WHERE workflow_state = 'published' AND score > 0 ORDER BY score DESC, number LIMIT ?",
        (*patterns, *patterns, args.get("limit", DEFAULT_LIMIT)),
    ).fetchall()
    view = View(ctx)
    articles = []
    for sys_id, points in rows:
        row = records.get(ctx, "kb_knowledge", sys_id)
        articles.append(
            {
                "number": row["number"],
                "title": row["short_description"],
                "snippet": plain_text(row["text"])[:200],
                "score": points,
                "author": view.user(row["author"]),
            }
        )
    return {"articles": articles}


def get_article(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """One published article's full text."""
    row = records.find(ctx, "kb_knowledge", args["number"])
    if row["workflow_state"] != "published":
        raise record_not_found(
            f"Knowledge article {args['number']!r} is {row['workflow_state'] or 'unpublished'}"
        )
    return {
        "number": row["number"],
        "sys_id": row["sys_id"],
        "title": row["short_description"],
        "text": plain_text(row["text"]),
        "category": row["topic"] or row["category"],
        "updated_at": row["sys_updated_on"],
    }


def knowledge_tools() -> list[Tool]:
    """The typed knowledge tools."""
    return [
        Tool(
            "search_knowledge",
            "Search the knowledge base for published how-to and troubleshooting articles. Returns "
            "article numbers, titles and snippets, best match first.",
            obj(
                {
                    "query": string("Symptoms or keywords, e.g. 'vpn error 809'.", 300, minLength=1),
                    "limit": {**LIMIT, "description": f"Maximum results (default {DEFAULT_LIMIT})."},
                },
                required=["query"],
            ),
            obj(
                {
                    "articles": {
                        "type": "array",
                        "items": obj(
                            {
                                "number": _STR,
                                "title": _STR,
                                "snippet": _STR,
                                "score": {"type": "integer"},
                                "author": _STR,
                            },
                            required=["number", "title"],
                        ),
                    }
                },
                required=["articles"],
            ),
            ToolKind.READ,
            search_knowledge,
        ),
        Tool(
            "get_article",
            "Read a knowledge article in full by its number (KB...).",
            obj({"number": NUMBER}, required=["number"]),
            obj(
                {k: _STR for k in ("number", "sys_id", "title", "text", "category", "updated_at")},
                required=["number", "title", "text"],
            ),
            ToolKind.READ,
            get_article,
        ),
    ]
