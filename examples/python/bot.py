"""A doko bot in 50 lines: it sits down at a table and plays its seat to the end of the
session from the table's stream alone (no polling: every stream message says whose turn it
is and what this seat may do).

    .venv/bin/python examples/python/bot.py http://127.0.0.1:8000 TABLE_ID [INVITATION]

It says ``healthy`` (holding both club queens that is a silent solo, R4.5), names the first
contract it is offered if it must, plays its first legal card and announces nothing. The
client (`service.tools.client`) opens each connection of the stream with a fresh stream
ticket, resumes after the last message when the service restarts, and retries requests as
the service asks (`RetryingTransport`).
"""

import asyncio
import sys

import httpx

from domain.commands import DealCommand, Declaration, Declare, NameContract, PlayCard
from domain.events import SessionFinished
from domain.table import SessionAbandoned, TableClosed
from service.tools.client import DokoClient, ProblemError
from service.tools.retry import RetryingTransport

OVER = (SessionFinished, SessionAbandoned, TableClosed)


async def play(url: str, table_id: str, invitation: str | None) -> None:
    async with httpx.AsyncClient(base_url=url, transport=RetryingTransport()) as http:
        me = await DokoClient(http).table(table_id, invitation=invitation).take_seat("bot.py")
        print(f"seat {me.seat} at table {table_id}")
        acted = 0  # the table version after my last command: older messages are stale
        async for message in me.follow():
            if isinstance(message.event, OVER):
                print(f"the session is over at version {message.version}")
                break
            options, turn = message.prompt.options, message.prompt.turn
            if turn != me.seat or options is None or message.version < acted:
                continue
            if options.declarations:  # healthy is always one of them (R4.1)
                command: DealCommand = Declare(me.seat, Declaration.HEALTHY)
            elif options.contracts:
                command = NameContract(me.seat, options.contracts[0])
            elif options.cards:
                command = PlayCard(me.seat, options.cards[0])
            else:
                continue
            try:
                acted = (await me.send(command)).version
            except ProblemError as problem:  # e.g. the turn clock acted first: the stream goes on
                print(f"refused {command}: {problem}", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(play(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None))
