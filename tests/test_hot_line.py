"""`HotLine`: a thread's own connection for the move path's round trips, on a real Redis."""

from __future__ import annotations

import os
import threading

import pytest
import redis

from service.config import Config
from service.storage.hot_line import HotLine

ECHO = "redis.call('INCR', KEYS[1]); return {ARGV[1], redis.call('GET', KEYS[1])}"


@pytest.fixture
def client(config: Config) -> redis.Redis:
    return redis.Redis.from_url(config.STORE_URL, decode_responses=True)


def test_a_call_answers_decoded_on_the_threads_own_connection(client: redis.Redis) -> None:
    line = HotLine(client)
    script = client.register_script(ECHO)
    client.script_load(ECHO)
    assert line.evalsha(script, ["hot:n"], ["é"]) == ["é", "1"]
    first = line._connection()
    assert line.evalsha(script, ["hot:n"], ["x"]) == ["x", "2"]
    assert line._connection() is first  # kept for the thread's next call
    seen: list[object] = []
    thread = threading.Thread(target=lambda: seen.append(line._connection()))
    thread.start()
    thread.join()
    assert seen and seen[0] is not first  # another thread, another connection
    assert client.connection_pool._in_use_connections == set()  # nothing taken from the pool


def test_a_flushed_script_is_loaded_and_run_once(client: redis.Redis) -> None:
    line = HotLine(client)
    script = client.register_script(ECHO)
    client.script_flush()
    assert line.evalsha(script, ["hot:m"], ["a"]) == ["a", "1"]
    assert client.get("hot:m") == "1"


def test_a_lost_connection_is_made_again(client: redis.Redis) -> None:
    line = HotLine(client)
    script = client.register_script(ECHO)
    client.script_load(ECHO)
    assert line.evalsha(script, ["hot:k"], ["a"])[1] == "1"
    mine = line._connection()
    mine.send_command("CLIENT", "ID")
    client.client_kill_filter(_id=mine.read_response())  # as a restarted Redis would
    assert line.evalsha(script, ["hot:k"], ["b"]) == ["b", "2"]
    assert line._connection() is mine  # the same object, connected anew


def test_a_script_error_is_raised(client: redis.Redis) -> None:
    line = HotLine(client)
    script = client.register_script("return redis.error_reply('nope')")
    client.script_load(script.script)
    with pytest.raises(redis.ResponseError, match="nope"):
        line.evalsha(script, [], [])
    assert line.evalsha(client.register_script("return 7"), [], []) == 7  # still usable


def test_a_forked_child_makes_its_own_connection(client: redis.Redis) -> None:
    line = HotLine(client)
    parent = line._connection()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: a connection of its own, never the parent's socket
        os.write(write, b"1" if line._connection() is not parent else b"0")
        os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(read, 1) == b"1"
    assert line._connection() is parent


def test_a_pipeline_answers_as_redis_pys_does(client: redis.Redis) -> None:
    """Replies through the client's callbacks, an error reply in place (the commands after it
    still run), in one send."""
    client.hset("hot:h", mapping={"a": "1"})
    commands = [("HGETALL", "hot:h"), ("HGETALL", "hot:none"), ("SET", "hot:s", "v"),
                ("INCR", "hot:h"), ("EXPIRE", "hot:s", 60), ("HGET", "hot:h", "a"),
                ("EVALSHA", "0" * 40, 0), ("GET", "hot:s")]
    pipe = client.pipeline(transaction=False)
    for command in commands:
        pipe.execute_command(*command)
    expected = pipe.execute(raise_on_error=False)
    client.delete("hot:s")
    line = HotLine(client)
    line._connection().connect()
    sends: list[bytes] = []
    conn = line._connection()
    original = conn.send_packed_command
    conn.send_packed_command = lambda packed, check_health=True: (  # type: ignore[method-assign]
        sends.append(packed), original(packed, check_health))
    got = line.pipeline(commands)
    assert len(sends) == 1
    assert got[:3] == [{"a": "1"}, {}, True] == expected[:3]
    assert type(got[3]) is type(expected[3]) is redis.ResponseError  # WRONGTYPE, in place
    assert got[4:6] == [True, "1"] == expected[4:6]
    assert isinstance(got[6], redis.exceptions.NoScriptError)
    assert got[7] == "v" == expected[7]


def test_a_pipeline_on_a_lost_connection_is_sent_again(client: redis.Redis) -> None:
    line = HotLine(client)
    mine = line._connection()
    mine.send_command("CLIENT", "ID")
    client.client_kill_filter(_id=mine.read_response())
    assert line.pipeline([("INCR", "hot:p"), ("GET", "hot:p")]) == [1, "1"]
