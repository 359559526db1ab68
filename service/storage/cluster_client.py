"""The game store's client for a Redis Cluster (PARLEY_STORE_CLUSTER=1).

redis-py's `RedisCluster` routes EVAL/EVALSHA by the keys that follow `numkeys`, but only once it
knows the command has keys at all; for a script it learns that by asking the server
(`COMMAND GETKEYS`), one more round trip for every script call, in a pipeline too (a drain of 16
games paid 16 of them per stage). The policy record below tells it up front that a script goes
to the node of its keys, so every script call costs what it costs on one Redis
(tests/cluster/test_store_on_cluster.py counts the commands a move sends).
"""

from __future__ import annotations

from typing import Any

from redis.cluster import ClusterNode, ClusterPipeline, RedisCluster
from redis.commands.policies import (
    BasePolicyResolver,
    CommandPolicies,
    PolicyResolver,
    RequestPolicy,
    ResponsePolicy,
    StaticPolicyResolver,
)

_BY_KEYS = CommandPolicies(request_policy=RequestPolicy.DEFAULT_KEYED,
                           response_policy=ResponsePolicy.DEFAULT_KEYED)


class ScriptsByKeys(BasePolicyResolver):
    """redis-py's own policies, with EVAL and EVALSHA sent to the node of their keys."""

    def __init__(self, fallback: PolicyResolver | None = None) -> None:
        super().__init__({"core": {"eval": _BY_KEYS, "evalsha": _BY_KEYS}},
                         fallback or StaticPolicyResolver())

    def with_fallback(self, fallback: PolicyResolver) -> PolicyResolver:
        return ScriptsByKeys(fallback)


class StoreCluster(RedisCluster):
    """`RedisCluster` whose pipelines route scripts as the client does (`ScriptsByKeys`):
    redis-py does not hand its policy resolver to the pipelines it makes."""

    def pipeline(self, transaction: Any = None, shard_hint: Any = None) -> ClusterPipeline:
        pipe = super().pipeline(transaction, shard_hint)
        pipe._policy_resolver = self._policy_resolver
        return pipe


def cluster_client(url: str, known_from: RedisCluster | None = None,
                   **options: Any) -> StoreCluster:
    """A cluster client from one node's URL (the others are learnt from it), and from every
    node `known_from` knows: a client made while that node is away (failed over, restarting)
    still finds the cluster."""
    nodes = [ClusterNode(n.host, n.port) for n in known_from.get_nodes()] if known_from else []
    return StoreCluster.from_url(url, policy_resolver=ScriptsByKeys(), startup_nodes=nodes,
                                 **options)
