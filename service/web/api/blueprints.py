"""One blueprint per resource, registered from this single list."""

from service.web.api.batch import blp as batch
from service.web.api.consents import blp as consents
from service.web.api.email_address import blp as email
from service.web.api.games import blp as games
from service.web.api.invitations import blp as invitations
from service.web.api.key_claims import blp as key_claims
from service.web.api.mail_settings import blp as mail
from service.web.api.moves import blp as moves
from service.web.api.players import blp as players
from service.web.api.problem_docs import blp as problems
from service.web.api.records import blp as records
from service.web.api.rulesets import blp as rulesets
from service.web.api.system import blp as system
from service.web.api.time_away import blp as clocks
from service.web.api.webhook_subscriptions import blp as webhooks

BLUEPRINTS = [players, email, consents, key_claims, rulesets, games, invitations, moves, batch,
              records, system, webhooks, mail, problems, clocks]
