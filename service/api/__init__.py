"""One blueprint per resource, registered from this single list."""

from service.api.batch import blp as batch
from service.api.games import blp as games
from service.api.mail import blp as mail
from service.api.moves import blp as moves
from service.api.players import blp as players
from service.api.problems import blp as problems
from service.api.records import blp as records
from service.api.rulesets import blp as rulesets
from service.api.system import blp as system
from service.api.webhooks import blp as webhooks

BLUEPRINTS = [players, rulesets, games, moves, batch, records, system, webhooks, mail,
              problems]
