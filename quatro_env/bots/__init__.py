"""Scripted reference opponents for Quatro (the bot ladder); see ``docs/evaluation.md``.

The registry :data:`quatro_env.quatro.bots.BOT_POLICIES` maps each name to its class.
"""

from quatro_env.bots.base import BotPolicy, ObservationView, ScriptedBot
from quatro_env.bots.basic import CollectorBot, IdleBot, RandomBot, RandomCallerBot
from quatro_env.bots.cover import CoverBot, ShoutBot
from quatro_env.bots.listening import CounterBot, EavesdropperBot
from quatro_env.bots.signalling import DecoyBot, HonestBot, ListenerBot

__all__ = [
    "BotPolicy",
    "CollectorBot",
    "CounterBot",
    "CoverBot",
    "DecoyBot",
    "EavesdropperBot",
    "HonestBot",
    "IdleBot",
    "ListenerBot",
    "ObservationView",
    "RandomBot",
    "RandomCallerBot",
    "ScriptedBot",
    "ShoutBot",
]
