"""Wording banks of the rule user: what an office worker types, per intent, register and mood.

Placeholders (the only ones a template may use, see :data:`PLACEHOLDERS`):

- ``{value}``: a fact's exact value (protected: style never alters it);
- ``{label}``: a fact's name in words (``employee_id`` -> ``employee ID``);
- ``{goal}``: the persona's goal as a full sentence in the user's voice (never an identifier);
- ``{what}``: the thing asked about, in words (an unknown, a refused secret, a fact not yet at hand);
- ``{name}``: the persona's display name (only used when it is not a fact the user keeps back);
- ``{facts}``: one or more fact sentences already filled (``My employee ID is E1234.``);
- ``{report}``: what happened when the user tried a step (the persona's ``when_true``/``when_false``).

``{facts}``, ``{report}`` and ``{goal}`` always begin a sentence in a template: they are
sentences themselves. A placeholder followed by ``.`` in a template loses that full stop when its
text already ends a sentence (no ``..``).

The voice is an employee writing to the service desk by chat: no agent-speak, no mention of
tools, fields, states or policies. Banks are tuples (ordered) so a seeded choice is reproducible.
Mood changes the wording (see :func:`register_for`, :data:`MOOD_BANKS`, :data:`EDGES`): an
irritated user drops one register toward terse and adds an edge; an angry one writes tersely and
adds a sharper edge (or uses the intent's own angry bank).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from enterprise_envs.scenarios.users.persona import FactKind, Mood, Register
from enterprise_envs.scenarios.users.turns import UserIntent

__all__ = [
    "AFTER_WORKS",
    "AFTER_WORKS_BY_MOOD",
    "BANKS",
    "COURTESY",
    "EDGES",
    "FACT_PHRASINGS",
    "GOAL_VERBS",
    "LABEL_WORDS",
    "MOOD_BANKS",
    "PLACEHOLDERS",
    "STALL",
    "STEP_REDO",
    "STILL_WORKS",
    "fill",
    "goal_sentence",
    "label",
    "placeholders_in",
    "register_for",
]

#: Every placeholder a template may use (documented in the module docstring).
PLACEHOLDERS = frozenset({"value", "label", "goal", "what", "name", "facts", "report"})

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}(\.?)")
_SENTENCE_END = re.compile(r"[.!?\u2026]['\")\]]*\s*$")

Bank = Mapping[Register, tuple[str, ...]]

#: Intent x register -> variants. OPENING is the fallback when a persona's opening has nothing left
#: to say once the sentences with identifiers it may not give are dropped.
BANKS: Mapping[UserIntent, Bank] = {
    UserIntent.OPENING: {
        Register.TERSE: (
            "Hi. {goal}",
            "{goal}",
            "Hello. {goal}",
            "Hi, {name} here. {goal}",
            "Quick one. {goal}",
        ),
        Register.NEUTRAL: (
            "Hi, this is {name}. {goal}",
            "Hello, I need some help. {goal}",
            "Hi there. {goal} Can you help?",
            "Good morning. {goal}",
            "Hi, I hope you can help me. {goal}",
        ),
        Register.WORDY: (
            "Hi, this is {name}. Sorry to bother you, but I could really use some help. {goal}",
            "Hello! I hope you're having a better day than me. {goal} I've been stuck on this for a while.",
            "Hi there. I'm not sure if I'm in the right place, but here goes. {goal}",
            "Good morning. I've been putting this off, but I can't work around it any longer. {goal}",
            "Hello, I'm hoping you can help me out. {goal} I'd really appreciate anything you can do.",
        ),
    },
    UserIntent.REFUSE: {
        Register.TERSE: (
            "I can't share my {what}.",
            "No, I won't give out my {what}.",
            "Not sharing that.",
            "Sorry, no. I can't give that out.",
            "I'm not giving out my {what}.",
        ),
        Register.NEUTRAL: (
            "Sorry, I'm not comfortable sharing my {what}.",
            "I don't think I should give out my {what}. Is there another way?",
            "We're told never to share that, so I'd rather not.",
            "I'd rather not give you my {what}, sorry.",
            "Hmm, I was told never to share my {what} with anyone, so I won't.",
        ),
        Register.WORDY: (
            "Sorry, but I really don't think I should be giving out my {what}. We get reminded about that "
            "all the time. Is there another way you can do this?",
            "I'd rather not share my {what}, if that's okay. It feels like something I shouldn't be "
            "sending over chat. Can we do it some other way?",
            "Hmm, I'm a bit wary of that. I was always told never to share my {what} with anyone, not even "
            "IT, so I'm not going to.",
            "I'm not comfortable giving that out, sorry. My manager would not be happy if I shared my "
            "{what}. Can you work around it?",
            "That doesn't sound right to me. I've been told again and again I can't give out my {what}. "
            "Could you do it without that?",
        ),
    },
    UserIntent.DONT_KNOW: {
        Register.TERSE: (
            "No idea.",
            "Don't know the {what}.",
            "No clue, sorry.",
            "I don't know that.",
            "Not sure, I don't have the {what}.",
        ),
        Register.NEUTRAL: (
            "Sorry, I don't know the {what}.",
            "I'm not sure what the {what} is.",
            "I have no idea, I've never had to look that up.",
            "Hmm, I don't know that one, sorry.",
            "I don't know the {what}, I've never seen it.",
        ),
        Register.WORDY: (
            "Hmm, I honestly don't know the {what}. I've never needed it before and I wouldn't know where "
            "to look.",
            "Sorry, I really have no idea what the {what} is. Nobody ever told me.",
            "I'm afraid I don't know that. I wouldn't want to guess and give you the wrong thing.",
            "Good question, but I have no idea. I don't think I've ever seen the {what} anywhere.",
            "I'm sorry, I don't know the {what}. Is there any other way you can find it?",
        ),
    },
    UserIntent.PUSH_BACK: {
        Register.TERSE: (
            "Already told you. {facts}",
            "I said that already. {facts}",
            "I already gave you that. {facts}",
            "Same as before. {facts}",
            "You asked that already. {facts}",
        ),
        Register.NEUTRAL: (
            "I already told you that. {facts}",
            "I think I mentioned that already. {facts}",
            "Like I said before. {facts}",
            "I gave you that a minute ago. {facts}",
            "You asked me that already. {facts}",
        ),
        Register.WORDY: (
            "I'm pretty sure I already gave you that earlier in the chat, but here it is again. {facts}",
            "I think I told you that already. No problem, here it is once more. {facts}",
            "You asked me that a little while ago. I'll repeat it in case it got lost. {facts}",
            "I already sent that, maybe it got lost somewhere. {facts}",
            "I'm sure I already gave you that. Anyway, here it is again. {facts}",
        ),
    },
    UserIntent.INFORM: {
        Register.TERSE: (
            "{facts}",
            "Sure. {facts}",
            "Yep. {facts}",
            "OK. {facts}",
            "Here. {facts}",
        ),
        Register.NEUTRAL: (
            "Sure. {facts}",
            "Of course. {facts}",
            "Yes, let me check. {facts}",
            "Okay. {facts}",
            "No problem. {facts} Does that help?",
        ),
        Register.WORDY: (
            "Sure, just give me a second to check. {facts} Let me know if you need anything more from me.",
            "Of course. {facts} I hope that's what you were after.",
            "Okay, let me look that up. {facts} Is that what you needed?",
            "Yes, no problem at all. {facts} Does that help?",
            "Right, I had to dig around a bit for that. {facts} Let me know if anything else would help.",
        ),
    },
    UserIntent.REPORT_STEP: {
        Register.TERSE: (
            "{report}",
            "Done. {report}",
            "Tried it. {report}",
            "OK, did that. {report}",
            "Did it. {report}",
        ),
        Register.NEUTRAL: (
            "Okay, I tried that. {report}",
            "I just did it. {report}",
            "Alright, done. {report}",
            "I gave it a go. {report}",
            "Okay, I did that. {report}",
        ),
        Register.WORDY: (
            "Okay, I've just done that, it took a minute. {report}",
            "Right, I followed what you said step by step. {report}",
            "Alright, I gave that a try, hopefully I did it correctly. {report}",
            "Okay, that took a little while but I've done it now. {report}",
            "I did exactly what you said, so here's what happened. {report}",
        ),
    },
    UserIntent.ACCEPT: {
        Register.TERSE: (
            "Great, all sorted. Thanks.",
            "Perfect, all good. Bye.",
            "That did it, thanks.",
            "Great, all set. Bye.",
            "Sorted, thanks. Bye.",
        ),
        Register.NEUTRAL: (
            "Great, that's all I needed. Thanks for your help!",
            "Perfect, that's sorted then. Thank you, bye.",
            "That did it, thanks a lot. Have a good day.",
            "Brilliant, all good on my end. Thanks!",
            "Great, that's everything. Thanks, bye.",
        ),
        Register.WORDY: (
            "Oh great, that's exactly what I needed. Thank you so much for your help, you've saved my "
            "afternoon. Bye!",
            "Perfect, that's all sorted now. Thanks a lot for your patience with me, have a nice day.",
            "Brilliant, all good on my end now. Thank you for sorting it out so quickly, I "
            "really appreciate it.",
            "That's great, thank you! I was getting worried I'd miss my deadline. Have a great day.",
            "Wonderful, that did the trick. Thanks again for all the help, I'll let my team know. Bye!",
        ),
    },
    UserIntent.DENY: {
        Register.TERSE: (
            "Still not working.",
            "No, still broken.",
            "Nope, same problem.",
            "It's not fixed.",
            "No. Still the same.",
        ),
        Register.NEUTRAL: (
            "No, it's still not working on my end.",
            "Sorry, but nothing has changed. It's still not working.",
            "I just checked and it's still not working.",
            "Hmm, no, I still have the same problem.",
            "It doesn't look fixed to me. Same problem as before.",
        ),
        Register.WORDY: (
            "I'm afraid it's still not working. I just tried again and I'm getting exactly the same problem "
            "as before.",
            "Hmm, are you sure? I checked again just now and nothing has changed on my side.",
            "Sorry, but it really isn't fixed. I've tried a couple of times and it's still the same.",
            "I don't think that worked. I just checked again and I still have the same problem I started "
            "with.",
            "Unfortunately no, it's still not working for me. Is there anything else we can try?",
        ),
    },
    UserIntent.CORRECT: {
        Register.TERSE: (
            "Not quite. {facts}",
            "No, that's wrong. {facts}",
            "That's not right. {facts}",
            "No, not quite. {facts}",
            "That's not it. {facts}",
        ),
        Register.NEUTRAL: (
            "No, that's not right. {facts}",
            "Sorry, that's not what I said. {facts}",
            "Not quite, actually. {facts}",
            "Hmm, that's not correct. {facts}",
            "I think you've got that wrong. {facts}",
        ),
        Register.WORDY: (
            "Sorry, I think there's been a mix-up there, that's not right. {facts}",
            "Hmm, no, that's not what I said. I'll say it again. {facts}",
            "I'm afraid that's not quite it. {facts} I hope that clears it up.",
            "No, that's not correct, something must have got mixed up along the way. {facts}",
            "Oh, I think you've got that wrong, sorry if I wasn't clear before. {facts}",
        ),
    },
    UserIntent.CONFIRM: {
        Register.TERSE: (
            "Yes, that's right.",
            "Yep, correct.",
            "Correct.",
            "Yes.",
            "That's right.",
        ),
        Register.NEUTRAL: (
            "Yes, that's right.",
            "Yes, exactly.",
            "That's correct, yes.",
            "Yep, that's it.",
            "Right, that's correct.",
        ),
        Register.WORDY: (
            "Yes, that's exactly right, thanks for checking.",
            "Yes, that's correct. Good to double-check.",
            "That's right, yes, you've got it.",
            "Exactly, that's what I said.",
            "Yes, spot on, that's it.",
        ),
    },
    UserIntent.CLARIFY: {
        Register.TERSE: (
            "Which one?",
            "Which one is it?",
            "So which one?",
            "Which one, though?",
            "Hm, which one is it?",
        ),
        Register.NEUTRAL: (
            "Sorry, which one is it?",
            "That's a few options. Which one is it?",
            "I'm not sure what you mean. Which one is it?",
            "Which one is it, though?",
            "So which one is mine?",
        ),
        Register.WORDY: (
            "Sorry, I'm a bit confused. You gave me a few options, so which one is it?",
            "Hmm, that's several different answers. Which one is actually right?",
            "I'm not sure I follow. Which one is it for me?",
            "Could you tell me which one it is? I can't tell from that.",
            "That sounds like a few possibilities. Which one is it, do you know?",
        ),
    },
    UserIntent.RESTATE: {
        Register.TERSE: (
            "{goal}",
            "Not sure. {goal}",
            "Sorry? {goal}",
            "Like I said. {goal}",
            "To be clear. {goal}",
        ),
        Register.NEUTRAL: (
            "Sorry, I'm not sure what you mean. {goal}",
            "I'm not sure about that. {goal}",
            "What I need is simple, really. {goal}",
            "I don't really know. What I do know is this. {goal}",
            "Let me put it another way. {goal}",
        ),
        Register.WORDY: (
            "Sorry, I'm not very technical, so I'm not sure what you're asking. What I really know is this. "
            "{goal}",
            "Hmm, I'm not sure how to answer that. Maybe I didn't explain it well. {goal}",
            "I'm not sure that's something I can help with. Let me explain again. {goal}",
            "I don't really understand the question, sorry. {goal} That's what I'm hoping you can help with.",
            "I'm a bit lost, to be honest. The problem I have is this. {goal}",
        ),
    },
    UserIntent.ACK_TRANSFER: {
        Register.TERSE: (
            "OK, thanks.",
            "Fine, thanks.",
            "OK, I'll wait.",
            "Alright. Thanks.",
            "Sure, go ahead.",
        ),
        Register.NEUTRAL: (
            "Okay, I'll wait to hear from them.",
            "Alright, thanks for passing it on.",
            "Sure, that's fine. I'll wait for them.",
            "Okay. I hope they can sort it out.",
            "Fine by me, thanks for your help.",
        ),
        Register.WORDY: (
            "Okay, that makes sense. I'll wait to hear from the other team, thanks for passing it along.",
            "Alright, if they're the right people for this then that's fine. Thanks for your help so far.",
            "Sure, no problem. I hope they can sort it out quickly, I really need this working.",
            "Okay, thanks. Please let them know it's fairly urgent for me.",
            "Fine, I'll wait for them to get in touch. Thanks for looking into it anyway.",
        ),
    },
    UserIntent.ABANDON: {
        Register.TERSE: (
            "Forget it. Bye.",
            "I give up. Bye.",
            "This is pointless. Bye.",
            "Never mind. I'll ask someone else.",
            "Done with this. Bye.",
        ),
        Register.NEUTRAL: (
            "This is going nowhere. I'll call someone instead. Bye.",
            "Forget it, I'll ask a colleague. Goodbye.",
            "I'm wasting my time here. Bye.",
            "Never mind, I'll sort it out myself somehow.",
            "I'm giving up on this chat. Bye.",
        ),
        Register.WORDY: (
            "Honestly, this has taken far too long and we're not getting anywhere. I'll ask someone in my "
            "team instead. Bye.",
            "I'm sorry, but I can't keep going round in circles like this. I'll try again later. Goodbye.",
            "I've spent ages on this already and we're not getting anywhere. I'll ask someone else. Bye.",
            "This is really frustrating and I've got work to do. Forget it, I'll take it up with my manager. "
            "Bye.",
            "Forget it. I've been wasting my time on this chat. I'll call the help line instead. Goodbye.",
        ),
    },
}

#: Mood -> intent -> variants used *instead of* the register bank (no edge is added to them). The
#: intents where frustration shows most: being asked again, hearing "it's fixed" when it is not,
#: being asked things that do not matter, and finally getting it working after a struggle.
MOOD_BANKS: Mapping[Mood, Mapping[UserIntent, tuple[str, ...]]] = {
    Mood.IRRITATED: {
        UserIntent.PUSH_BACK: (
            "I already told you. {facts}",
            "Once again. {facts}",
            "Please read the chat, I said this. {facts}",
            "I've said this before. {facts}",
            "That's the same question as before. {facts}",
        ),
        UserIntent.DENY: (
            "No, it's still not working. I already told you.",
            "It's still broken. Can you actually check?",
            "No. Nothing has changed.",
            "It's still not working, same as before.",
            "No, same problem as before. Please look at it properly.",
        ),
        UserIntent.CORRECT: (
            "No, that's wrong. {facts}",
            "That's not what I said. {facts}",
            "Not right. Read it again. {facts}",
            "Please read what I wrote, that's not right. {facts}",
            "You've got that wrong. {facts}",
        ),
        UserIntent.CONFIRM: (
            "Yes. That's what I said.",
            "Yes, correct.",
            "Yes, as I said.",
            "That's right. Can we move on?",
            "Yes. Right.",
        ),
        UserIntent.CLARIFY: (
            "Which one is it? I need a straight answer.",
            "Which one? That's several.",
            "Just tell me which one.",
            "Okay, but which one is it?",
            "Which one? Please be clear.",
        ),
        UserIntent.RESTATE: (
            "I don't know. {goal}",
            "Look, I just need this sorted. {goal}",
            "I already explained. {goal}",
            "Can we focus? {goal}",
            "I'm not sure why that matters. {goal}",
        ),
        UserIntent.ACCEPT: (
            "Finally. Thanks, bye.",
            "Okay, all sorted then. Thanks.",
            "Right, that did it. Bye.",
            "Good, that's all I needed. Bye.",
            "At last. Thanks, bye.",
        ),
    },
    Mood.ANGRY: {
        UserIntent.PUSH_BACK: (
            "I've told you this already! {facts}",
            "How many times? {facts}",
            "Scroll up, it's right there. {facts}",
            "For the last time, I told you. {facts}",
            "I already answered that! {facts}",
        ),
        UserIntent.DENY: (
            "It is STILL not working.",
            "No! Nothing has changed, stop telling me it's fixed.",
            "It's not fixed. How many times do I have to say it?",
            "Still broken. Are you even checking?",
            "No, it doesn't work. This is getting ridiculous.",
        ),
        UserIntent.CORRECT: (
            "No! That's not what I said. {facts}",
            "That's wrong! {facts}",
            "That's not right, and I told you already. {facts}",
            "No, that's not correct. Read the chat. {facts}",
            "You've got it wrong again. {facts}",
        ),
        UserIntent.CONFIRM: (
            "Yes! That's what I said.",
            "Yes. Obviously.",
            "That's what I told you. Yes.",
            "Correct. Now can we get on with it?",
            "Yes, yes. Move on.",
        ),
        UserIntent.CLARIFY: (
            "Which one?! Just tell me.",
            "Which one is it? Make up your mind.",
            "That's not an answer. Which one?",
            "Which one? I need one answer.",
            "Pick one. Which one is it?",
        ),
        UserIntent.RESTATE: (
            "I've said this already. {goal}",
            "How is that relevant? {goal}",
            "Please just fix it. {goal}",
            "I keep telling you. {goal}",
            "I don't know and I don't care. {goal}",
        ),
        UserIntent.ACCEPT: (
            "Finally. Bye.",
            "About time. Bye.",
            "Finally, that's sorted. Bye.",
            "That took ages. Bye.",
            "Okay. Finally. Bye.",
        ),
    },
}

#: Edges: whole sentences put before (``prefix``) or after (``suffix``) a reply by an irritated or
#: angry user, for the intents without a mood bank. Whole sentences so the reply's own first
#: word keeps its capital.
EDGES: Mapping[Mood, Mapping[str, tuple[str, ...]]] = {
    Mood.IRRITATED: {
        "prefix": ("Okay.", "Right.", "Look.", "Fine.", "Sigh."),
        "suffix": (
            "Can we speed this up?",
            "This is taking a while.",
            "I do have other work to do.",
            "Is this going to take much longer?",
            "I have a meeting soon.",
        ),
    },
    Mood.ANGRY: {
        "prefix": ("Seriously?", "Come on.", "Unbelievable.", "Ugh.", "Oh, for goodness' sake."),
        "suffix": (
            "I've been at this for ages.",
            "I need this fixed today.",
            "This is taking forever.",
            "Why is this so hard?",
            "I'm running out of patience here.",
        ),
    },
}

#: Register -> sentence said before a step report when the user already tried that step.
STEP_REDO: Bank = {
    Register.TERSE: (
        "Did that already.",
        "Tried that before.",
        "Already did that once.",
        "Again? Fine.",
        "That again? OK.",
    ),
    Register.NEUTRAL: (
        "I already tried that earlier, but I did it again.",
        "I did that before, but okay, once more.",
        "We tried this already, but I did it again anyway.",
        "I've done that once already. I did it again.",
        "That's the same thing as before, but fine, I did it.",
    ),
    Register.WORDY: (
        "I'm fairly sure we already tried this earlier, but I did it again just to be sure.",
        "That's what you asked me to do before, but okay, I went through it all once more.",
        "I already did that a little while ago, but I tried it again like you said.",
        "We've been through this one already, but I gave it another go anyway.",
        "I did this before, so I'm not expecting much, but I did it again.",
    ),
}

#: Register -> what a user who already said the problem works says when told it is done, asked,
#: or told nothing while the goal is not met yet: its own words stay true (it works), and it is
#: still not done ("not yet", so it is a no). Never "still not working": that would take back
#: what the user said.
AFTER_WORKS: Bank = {
    Register.TERSE: (
        "Working now, but not yet sorted.",
        "It works. Not sorted yet, though.",
        "Works now, but not sorted yet.",
        "It works now. Not yet done, though.",
        "Yes, it works. Not sorted yet.",
    ),
    Register.NEUTRAL: (
        "It works now, yes, but I haven't heard that it's all sorted. Not yet, anyway.",
        "It's working on my side now, but it's not sorted yet as far as I know.",
        "Well, it works now, but nobody has told me it's finished. Not yet.",
        "Like I said, it works now. But it's not sorted yet, is it?",
        "It works for me now, but I haven't been told it's done. Not yet.",
    ),
    Register.WORDY: (
        "It's working for me now, like I said, but I haven't heard that everything is sorted on your "
        "end. Not yet, anyway.",
        "Yes, it works now, thanks to that last thing. But as far as I know it's not sorted yet on your "
        "side.",
        "It works on my end now, but nobody has told me it's all finished, so not yet as far as I can tell.",
        "Well, the problem itself is gone now, but I haven't heard that it's all wrapped up. Not yet, "
        "anyway.",
        "I'm happy it works now, but I haven't been told it's all finished. Not yet.",
    ),
}

#: Mood -> :data:`AFTER_WORKS` for an irritated or angry user (used instead of the register bank).
AFTER_WORKS_BY_MOOD: Mapping[Mood, tuple[str, ...]] = {
    Mood.IRRITATED: (
        "It works, I said so. But it's not sorted yet.",
        "It works now. I told you. Not sorted yet though.",
        "Yes, it works. Not yet finished on your side, is it?",
        "Working now, like I said. Not sorted yet.",
        "I said it works. It's not sorted yet, though.",
    ),
    Mood.ANGRY: (
        "It WORKS. I said so. But it's not sorted yet!",
        "I told you it works. Not sorted yet.",
        "It works! But it's not sorted yet, is it?",
        "Working. Not sorted yet. Come on.",
        "I already said it works. Not yet sorted though.",
    ),
}

#: Register -> the report of a step that would not have helped, tried after the user already said
#: the problem works: it still works (the step's ``when_false`` would take that back).
STILL_WORKS: Bank = {
    Register.TERSE: (
        "Still works, like before.",
        "It still works.",
        "Still working fine.",
        "Still fine on my end.",
        "All still working.",
    ),
    Register.NEUTRAL: (
        "It was already working, and it still is.",
        "It still works, like it did after the last thing.",
        "Everything still works on my side.",
        "It's still working fine.",
        "It keeps working, same as before.",
    ),
    Register.WORDY: (
        "It was already working after what we did before, and it still works now.",
        "Everything is still working fine on my side, same as after the last thing I tried.",
        "It still works, like it did after the last step you gave me.",
        "Nothing's gone wrong since, it's still working fine.",
        "I did it, and it's all still working like before.",
    ),
}

#: Register -> a reply that puts off telling a fact the user cannot give yet (``min_turn``), without
#: revealing it: they do not have it at hand.
STALL: Bank = {
    Register.TERSE: (
        "Don't have the {what} handy.",
        "Need to look up the {what}.",
        "Not sure offhand, need to check.",
        "Can't check the {what} right now.",
        "Hang on, need to find the {what}.",
    ),
    Register.NEUTRAL: (
        "I don't have my {what} in front of me right now.",
        "I'd need to look up the {what}. Can we do something else first?",
        "Hmm, I'll have to find the {what}. Give me a bit.",
        "I can't check the {what} at the moment, sorry.",
        "I don't remember the {what} off the top of my head.",
    ),
    Register.WORDY: (
        "Oh, I don't have the {what} with me at the moment. I'd have to go and look it up, can we do the "
        "other stuff first?",
        "Hmm, I'd need to dig out the {what}, it's somewhere in my emails. Give me a little while.",
        "I'm away from my desk right now, so I can't check the {what}. I'll find it in a bit.",
        "I don't remember the {what} off the top of my head, sorry. I'll have to look for it.",
        "Good question, I'd have to look that up. The {what} is written down somewhere, just not here.",
    ),
}

#: FactKind -> (labelled, bare) phrasings. Labelled ones name the fact and are used when a reply
#: tells several facts; bare ones ("It's E1234.") only when it tells one. Symptoms and history
#: are sentences of their own ("the screen goes black", "since Monday"), so they never name a
#: label (a key such as ``since`` makes a poor label).
FACT_PHRASINGS: Mapping[FactKind, tuple[tuple[str, ...], tuple[str, ...]]] = {
    FactKind.IDENTIFIER: (
        ("My {label} is {value}.", "The {label} is {value}.", "It's {value}, that's my {label}."),
        ("It's {value}.", "That's {value}.", "{value}."),
    ),
    FactKind.ATTRIBUTE: (
        ("My {label} is {value}.", "The {label} is {value}.", "For the {label}, it's {value}."),
        ("It's {value}.", "{value}.", "It says {value}."),
    ),
    FactKind.SYMPTOM: (
        ("What I see is {value}.", "Basically, {value}.", "What happens is {value}."),
        ("What I see is {value}.", "Basically, {value}.", "{value}."),
    ),
    FactKind.HISTORY: (
        ("As far as I remember, {value}.", "That was {value}.", "{value}, I think."),
        ("{value}.", "As far as I remember, {value}.", "That was {value}."),
    ),
    FactKind.PREFERENCE: (
        (
            "For the {label}, I'd prefer {value}.",
            "My {label} would be {value}.",
            "As for the {label}, {value}.",
        ),
        ("I'd prefer {value}.", "{value}, if possible.", "{value} would be best."),
    ),
}

#: Courtesy sentences the style pass may add (politeness). None is a farewell, so a courtesy never
#: makes a reply read as the end of the conversation.
COURTESY = ("Thanks.", "Thank you.", "Thanks for your help.", "Appreciate it.", "Cheers.")

#: Words written in capitals when a key becomes a label (``vpn_client`` -> ``VPN client``).
LABEL_WORDS: Mapping[str, str] = {
    "id": "ID",
    "ip": "IP",
    "it": "IT",
    "mfa": "MFA",
    "os": "OS",
    "otp": "OTP",
    "pc": "PC",
    "pin": "PIN",
    "sso": "SSO",
    "vpn": "VPN",
    "url": "URL",
    "mac": "MAC",
    "hr": "HR",
    "wifi": "Wi-Fi",
}

#: First words of a goal written as a bare instruction ("Get my VPN fixed"): the restated goal
#: becomes "I need to get my VPN fixed." so it reads as the user's own sentence.
GOAL_VERBS = frozenset(
    {
        "get", "have", "fix", "reset", "restore", "find", "set", "make", "change", "update", "install",
        "access", "recover", "unlock", "open", "log", "report", "book", "order", "request", "cancel",
        "add", "remove", "renew", "replace", "repair", "sort", "connect", "enable", "disable", "move",
        "transfer", "grant", "give", "know",
    }
)  # fmt: skip


def register_for(register: Register, mood: Mood) -> Register:
    """The register a user in this mood writes in: irritated drops one step, angry is terse."""
    if mood is Mood.ANGRY:
        return Register.TERSE
    if mood is Mood.IRRITATED:
        return Register.NEUTRAL if register is Register.WORDY else Register.TERSE
    return register


def label(key: str) -> str:
    """A key in words (``employee_id`` -> ``employee ID``)."""
    return " ".join(LABEL_WORDS.get(part, part) for part in key.split("_") if part)


def goal_sentence(goal: str) -> str:
    """The persona's goal as one sentence in the user's voice (``I need to ...`` for a bare verb)."""
    text = " ".join(goal.split())
    if not text:
        return "I need some help."
    first = text.split()[0]
    if first.lower() in GOAL_VERBS and first[:1].isupper():
        text = "I need to " + text[:1].lower() + text[1:]
    elif first.lower() in GOAL_VERBS:
        text = "I need to " + text
    elif text[:1].islower():
        text = text[:1].upper() + text[1:]
    if not _SENTENCE_END.search(text):
        text += "."
    return text


def placeholders_in(template: str) -> list[str]:
    """The placeholder names a template uses, in order."""
    return [match.group(1) for match in _PLACEHOLDER.finditer(template)]


def fill(template: str, values: Mapping[str, str], *, strict: bool = True) -> str:
    """Fill a template's placeholders in one pass (filled text is never scanned again).

    Args:
        template: A bank template, or a persona's own text (``strict=False``).
        values: Placeholder -> text.
        strict: Raise on a placeholder outside :data:`PLACEHOLDERS` or without a value; otherwise
            leave such a placeholder as written (persona-authored text).

    Returns:
        The text; a placeholder's following ``.`` is dropped when its text already ends a sentence.
    """

    def replace(match: re.Match[str]) -> str:
        name, dot = match.group(1), match.group(2)
        if name not in PLACEHOLDERS or name not in values:
            if strict:
                raise ValueError(f"template placeholder {{{name}}} is not available: {template!r}")
            return match.group(0)
        text = values[name]
        if dot and _SENTENCE_END.search(text):
            return text
        return text + dot

    return _PLACEHOLDER.sub(replace, template)
