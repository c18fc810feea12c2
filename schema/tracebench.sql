-- tracebench.sql - the analysis database, schema version 15.
-- Version 2 added requests.repeat (replay --repeat), version 3 runs.clock
-- (the host and clock of a shard) and requests.streamed (a whole JSON body,
-- not SSE), version 4 where output tokens came from, the token events, the
-- server's cached prompt tokens, the salt and the connection of each
-- request, version 5 the tables metric_scrapes and metric_samples (replay
-- --metrics-url), version 6 requests.session and requests.turn (a turn of
-- a session), version 7 requests.rate (the offered rate of a rate level,
-- replay --find-capacity=rate), version 8 runs.provenance (the command,
-- build, host, tags and server of a run), version 9 requests.server_timings,
-- server_queue_ns, server_prefill_ns and server_decode_ns (the server's own
-- account of a request, lib/srvtiming.h), version 10 metric_scrapes.at (a
-- scrape at a level's start or end, or between levels), version 11
-- metric_scrapes.source (which of several --metrics-url), version 12
-- runs.trace_crc32 (the CRC-32 recorded beside the trace's SHA-256, so
-- files from before the SHA-256 still match), version 13 requests.cancel
-- (the point replay --cancel chose the request to be cut at), version 14
-- requests.model (the model a replay --model-mix sent the request to),
-- version 15 requests.client_issue_ns and client_read_ns (the client's own
-- delays, lib/clientbound.h);
-- analyze/db.c
-- migrates an older database when it opens it for writing, and reads one
-- as is.
-- Loaded by `tracebench analyze`; see schema/FORMAT.md for the fields.
-- Plain SQL only: the sqlite3 shell can query everything here.

-- Applied by analyze only after it has checked that the database is not of
-- a newer version (analyze/db.c), so this never downgrades one.
PRAGMA user_version = 15;

CREATE TABLE IF NOT EXISTS runs (
	run_id       TEXT PRIMARY KEY,
	label        TEXT NOT NULL,
	created      TEXT,
	tool         TEXT,
	endpoint     TEXT,
	model        TEXT,
	trace_path   TEXT,
	trace_digest TEXT,          -- "sha256:..." ("crc32:..." in older files)
	trace_crc32  TEXT,          -- "crc32:..." beside a SHA-256, else NULL
	mode         TEXT,
	params       TEXT,          -- JSON object of the results header
	source       TEXT,          -- results file it was loaded from
	loaded_at    TEXT,
	clock        TEXT,          -- JSON object: the header's host and clock
	provenance   TEXT           -- JSON object: the header's provenance
);

CREATE TABLE IF NOT EXISTS requests (
	run_id           TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
	seq              INTEGER NOT NULL,
	level            INTEGER NOT NULL,
	repeat           INTEGER NOT NULL DEFAULT 0,  -- repetition of the level, from 0
	trace_id         INTEGER,
	warmup           INTEGER NOT NULL,
	status           INTEGER,
	error            TEXT,      -- NULL on success
	error_detail     TEXT,
	sched_ns         INTEGER,
	send_ns          INTEGER,
	ttft_ns          INTEGER,
	ttfa_ns          INTEGER,
	e2e_ns           INTEGER,
	input_tokens     INTEGER,
	output_tokens    INTEGER,
	tokens_estimated INTEGER NOT NULL,
	itl_us           TEXT,      -- JSON array of inter-token gaps
	streamed         INTEGER NOT NULL DEFAULT 1,  -- 0: one JSON body, no TTFT of its own
	tokens_source    TEXT,      -- usage, tokenize or events (estimated)
	token_events     INTEGER,   -- events that carried tokens
	cached_tokens    INTEGER,   -- prompt tokens the server's prefix cache held
	salt             TEXT,      -- put before the prompt; NULL: none
	new_connection   INTEGER NOT NULL DEFAULT 0,  -- had to open its connection
	connect_ns       INTEGER,   -- start -> TCP connected, when it connected
	tls_ns           INTEGER,   -- TCP connected -> TLS done, when it did
	session          INTEGER,   -- the trace's session, NULL outside one
	turn             INTEGER,   -- its turn there, from 0
	rate             REAL,      -- offered req/s of a rate level (level < 0), else NULL
	server_timings   TEXT,      -- the shape of the server's own timings: llama.cpp, vllm, sglang
	server_queue_ns  INTEGER,   -- the server's queue time, when it said
	server_prefill_ns INTEGER,  -- its prefill (scheduled -> first token)
	server_decode_ns INTEGER,   -- its decode (first token -> last)
	cancel           TEXT,      -- replay --cancel chose it, to be cut here:
	                            -- '200ms', 'tokens:16'; NULL: not chosen
	model            TEXT,      -- the model a --model-mix sent it to, else NULL
	client_issue_ns  INTEGER,   -- due -> libcurl writing it (the client's delay)
	client_read_ns   INTEGER,   -- the age of the loop pass that stamped its first token
	PRIMARY KEY (run_id, seq)
);

CREATE INDEX IF NOT EXISTS requests_level ON requests(run_id, level);

-- The server's own metrics (replay --metrics-url): one row per scrape, one
-- per series of it. Values as the server gave them; NaN is NULL. Unknown
-- metrics are kept like known ones; analyze report reads the known ones.
CREATE TABLE IF NOT EXISTS metric_scrapes (
	run_id     TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
	scrape     INTEGER NOT NULL,          -- order in the results file, from 0
	level      INTEGER NOT NULL,
	repeat     INTEGER NOT NULL DEFAULT 0,
	t_ns       INTEGER NOT NULL,          -- sent, offset from the run's start
	latency_us INTEGER,
	status     INTEGER,
	ok         INTEGER NOT NULL,
	error      TEXT,
	bad_lines  INTEGER NOT NULL DEFAULT 0,
	first_bad  TEXT,
	at         TEXT,                      -- 'level_start', 'level_end', 'between'; NULL:
	                                      -- an interval scrape inside the level
	source     TEXT,                      -- the --metrics-url scraped, redacted (a
	                                      -- record's "source"); NULL: the run's one
	PRIMARY KEY (run_id, scrape)
);

CREATE TABLE IF NOT EXISTS metric_samples (
	run_id TEXT NOT NULL,
	scrape INTEGER NOT NULL,
	name   TEXT NOT NULL,                 -- the metric: vllm:num_requests_running
	series TEXT NOT NULL,                 -- with its labels: name{model_name="m"}
	value  REAL,                          -- NULL for NaN
	FOREIGN KEY (run_id, scrape) REFERENCES metric_scrapes(run_id, scrape) ON DELETE CASCADE
);

CREATE INDEX IF NOT EXISTS metric_samples_scrape ON metric_samples(run_id, scrape);

-- The metric columns of both views mirror lib/metric.h, where each metric
-- is defined; tests/unit/test_metric.c checks that they agree with it on
-- real results. A non-streamed response (streamed = 0: one JSON body, its
-- tokens at once) has NULL TTFT, TTFA, TPOT and per-request tok/s and counts
-- in E2E and tokens only; TPOT and per-request tok/s are NULL too for a
-- request without a decoding phase to time (no TTFT, fewer than two output
-- tokens, E2E = TTFT).
CREATE VIEW IF NOT EXISTS v_requests AS
SELECT r.label              AS run,
       q.run_id             AS run_id,
       q.level              AS concurrency,   -- -k: the k-th rate of a rate search
       q.rate               AS offered_rps,   -- ... its offered rate
       q.repeat             AS repeat,
       q.seq                AS seq,
       q.trace_id           AS trace_id,
       q.warmup             AS warmup,
       q.status             AS status,
       q.error              AS error,
       q.error_detail       AS error_detail,
       q.cancel             AS cancel,
       -- in the statistics: succeeded and not chosen by replay --cancel
       (q.error IS NULL AND q.cancel IS NULL) AS measured,
       CASE WHEN q.streamed THEN q.ttft_ns / 1e6 END AS ttft_ms,
       CASE WHEN q.streamed THEN q.ttfa_ns / 1e6 END AS ttfa_ms,
       q.e2e_ns / 1e6       AS e2e_ms,
       CASE WHEN q.streamed AND q.output_tokens >= 2 AND q.ttft_ns IS NOT NULL
                 AND q.e2e_ns > q.ttft_ns
            THEN (q.e2e_ns - q.ttft_ns) / 1e6 / (q.output_tokens - 1) END AS tpot_ms,
       CASE WHEN q.streamed AND q.output_tokens >= 2 AND q.ttft_ns IS NOT NULL
                 AND q.e2e_ns > q.ttft_ns
            THEN q.output_tokens * 1e9 / (q.e2e_ns - q.ttft_ns) END AS req_tok_s,
       q.input_tokens       AS input_tokens,
       q.output_tokens      AS output_tokens,
       q.tokens_estimated   AS tokens_estimated,
       q.streamed           AS streamed,
       q.tokens_source      AS tokens_source,
       q.token_events       AS token_events,
       q.cached_tokens      AS cached_tokens,
       q.salt               AS salt,
       q.new_connection     AS new_connection,
       q.connect_ns / 1e6   AS connect_ms,
       q.tls_ns / 1e6       AS tls_ms,
       q.session            AS session,
       q.turn               AS turn,
       q.sched_ns / 1e6     AS sched_ms,
       q.send_ns / 1e6      AS send_ms,
       q.server_timings     AS server_timings,
       q.server_queue_ns / 1e6   AS server_queue_ms,
       q.server_prefill_ns / 1e6 AS server_prefill_ms,
       q.server_decode_ns / 1e6  AS server_decode_ms,
       q.model              AS model,          -- a --model-mix's, else NULL
       -- the client's own delays (lib/clientbound.h): due -> its bytes
       -- being written; the age of the loop pass that stamped its first token
       q.client_issue_ns / 1e6 AS client_issue_ms,
       q.client_read_ns / 1e6  AS client_read_ms,
       -- the client's time beyond what the server accounted for: send,
       -- network, the client, and a queue the server does not report
       CASE WHEN q.server_prefill_ns IS NOT NULL AND q.ttft_ns IS NOT NULL
            THEN (q.ttft_ns - coalesce(q.server_queue_ns, 0) - q.server_prefill_ns) / 1e6
       END AS rest_ttft_ms,
       CASE WHEN q.server_prefill_ns IS NOT NULL AND q.server_decode_ns IS NOT NULL
            THEN (q.e2e_ns - coalesce(q.server_queue_ns, 0) - q.server_prefill_ns
                  - q.server_decode_ns) / 1e6
       END AS rest_e2e_ms
FROM requests q JOIN runs r USING (run_id);

-- Per run and level, over non-warm-up requests, computed as lib/metric.c
-- does: the shards of a run (results files loaded under one label) merge
-- as analyze report merges them; the wall time runs from the first
-- scheduled start to the last end, summed over the repeats of the level
-- (replay --repeat) that last longer than 0. estimated counts the
-- successful requests whose output tokens were counted from events, not
-- reported; a request replay --cancel chose is in no figure but its own
-- counts (cancelled: cut at its point, no error; cancel_ended: ended
-- before it); cache_hit_share is the share of prompt tokens the server's
-- prefix cache held, over the requests that said. Percentiles need sorting
-- and interpolation; `tracebench analyze report` computes those.
CREATE VIEW IF NOT EXISTS v_summary AS
WITH walls AS (
	SELECT run, concurrency, max(1, sum(wall_s > 0)) AS repeats,
	       sum(wall_s) AS wall_s
	FROM (SELECT run, concurrency, repeat,
	             (max(sched_ms + e2e_ms) - min(sched_ms)) / 1e3 AS wall_s
	      FROM v_requests WHERE warmup = 0
	      GROUP BY run, concurrency, repeat)
	GROUP BY run, concurrency
)
SELECT v.run, min(v.run_id) AS run_id, v.concurrency,
       max(v.offered_rps)                              AS offered_rps,
       count(DISTINCT v.run_id)                        AS shards,
       count(*)                                        AS requests,
       sum(v.measured)                                 AS ok,
       sum(v.error IS NOT NULL AND NOT (v.cancel IS NOT NULL
                                        AND v.error = 'cancelled')) AS errors,
       sum(CASE WHEN v.measured THEN v.output_tokens END) AS tokens,
       sum(v.measured AND v.tokens_source = 'events') AS estimated,
       w.wall_s                                        AS wall_s,
       sum(CASE WHEN v.measured THEN v.output_tokens END) / w.wall_s AS agg_tok_s,
       avg(CASE WHEN v.measured THEN v.req_tok_s END) AS per_req_tok_s,
       avg(CASE WHEN v.measured THEN v.ttft_ms END) AS avg_ttft_ms,
       avg(CASE WHEN v.measured THEN v.e2e_ms END)  AS avg_e2e_ms,
       avg(CASE WHEN v.measured THEN v.tpot_ms END) AS avg_tpot_ms,
       1.0 * sum(CASE WHEN v.measured AND v.cached_tokens IS NOT NULL
                      THEN v.cached_tokens END) /
             sum(CASE WHEN v.measured AND v.cached_tokens IS NOT NULL
                      THEN v.input_tokens END)          AS cache_hit_share,
       sum(v.new_connection)                           AS new_connections,
       w.repeats                                       AS repeats,
       sum(v.cancel IS NOT NULL AND v.error = 'cancelled') AS cancelled,
       sum(v.cancel IS NOT NULL AND v.error IS NULL)   AS cancel_ended
FROM v_requests v JOIN walls w ON w.run = v.run AND w.concurrency = v.concurrency
WHERE v.warmup = 0
GROUP BY v.run, v.concurrency;
