/*
 * sub.h: subscriptions (mapmon-protocol(7)): a connection asks for "osdmap",
 * "pgmap", "log" or "health" and is pushed what changes, as it commits.
 *
 * {"prefix":"subscribe","what":W,"start":S} is answered rc 0 at once; then
 * the pushes (PUSH frames whose id is the subscribing request's id) are:
 *
 *  osdmap  one {"what":"osdmap","epoch":E,"inc":INC} per stored epoch
 *          after S, SUB_OSDMAP_CHUNK at a time, paced as the pgmap
 *          snapshot is, or, when S is 0, absent or older than the oldest
 *          stored incremental, one {"what":"osdmap","epoch":E,"full":MAP}
 *          of the current map; nothing when S is the applied epoch or
 *          later (a client resuming on a monitor behind the one it left:
 *          it skips what it has); then one incremental per commit that
 *          changes it (those of commits during the catch-up come in it, in
 *          epoch order).
 *  pgmap   a snapshot in pushes of at most SUB_PG_CHUNK PGs,
 *          {"what":"pgmap","version":V,"full":true,"pg_stats":[..],
 *          "last":bool}, each sent once the connection has written out
 *          everything before it (server_notify_drained), so that a reader
 *          is never cut at max_client_output and one chunk holds the loop
 *          for well under a millisecond; a subscriber that stops reading
 *          is cut by the server's write-stall bound (idle_timeout).  Then
 *          {"what":"pgmap","version":V,"pg_stats":[..]} with the PGs each
 *          commit changed (those of a commit during the snapshot come
 *          between its chunks: apply every push in order).  With S, a
 *          version whose incrementals are kept: instead of the snapshot,
 *          the PGs changed after S with their stats now,
 *          {"what":"pgmap","version":V,"since":S,"pg_stats":[..],
 *          "last":bool}, paced likewise; nothing when S is the applied
 *          version or later.
 *  log     with S given, the kept entries whose seq is above S, at most
 *          SUB_LOG_CHUNK a push, paced likewise; then every new entry:
 *          {"what":"log","entries":[{"seq","stamp","severity","message"}]}
 *          (those of commits during the catch-up come in it, in order).
 *  health  {"what":"health","health":HEALTH} now, and whenever the status
 *          or the set of checks changes (checked at each commit and every
 *          second).
 *
 * A push made for many subscribers is serialised once and the same text
 * sent to each (server_push_raw), so the server's max_client_output cap
 * cuts a subscriber that does not read.  A connection may hold at most
 * SUB_MAX_PER_CONN subscriptions (-EBUSY past it).
 */
#ifndef SUB_H
#define SUB_H

#include <stdint.h>

#include <event2/event.h>

struct mon;
struct mon_commit_info;
struct server;
struct sub;
struct sub_one;

/*
 * PGs per snapshot chunk: about 370 KB of JSON, written by pg_text in some
 * 0.15 ms here (a jansson object and dump took 5 ms for as many).
 */
#define SUB_PG_CHUNK 256
/*
 * Stored osdmap incrementals per push burst of a catch-up: 5,000 took
 * some 100 ms here, so a burst holds the loop well under a millisecond.
 */
#define SUB_OSDMAP_CHUNK 32
/*
 * And at most about this many bytes of them: the least max_client_output
 * (mapmon.conf(5)), so a burst, queued on drained output, never passes it.
 */
#define SUB_BURST_BYTES (64 * 1024)
/* Log entries per push of a catch-up (10,000 entries took some 20 ms). */
#define SUB_LOG_CHUNK 256
#define SUB_MAX_PER_CONN 16

enum sub_what { SUB_OSDMAP, SUB_PGMAP, SUB_LOG, SUB_HEALTH, SUB_NWHAT };

/*
 * Subscriptions of monitor m's changes, told of each applied commit by
 * sub_commit() (the caller hooks m's notify: cmd.c).  Never fails.
 */
struct sub *sub_new(struct event_base *, struct mon *m);
void sub_set_server(struct sub *, struct server *);
/* A commit was applied: push it to the subscribers (a mon_notify_cb's). */
void sub_commit(struct sub *, const struct mon_commit_info *);
/* Free every subscription (the caller has unhooked the notify). */
void sub_free(struct sub *);

/* "osdmap" -> SUB_OSDMAP; -1 for an unknown name. */
int sub_what_parse(const char *);

/*
 * Register a subscription of connection conn, request req.  Returns it, or
 * NULL with *rc (-EBUSY) and *status (caller frees) when the connection
 * holds too many.  Nothing is pushed until sub_start().
 */
struct sub_one *sub_add(struct sub *, uint64_t conn, uint64_t req,
    enum sub_what what, int has_start, int64_t start, int *rc,
    char **status);

/* Push what a new subscription gets first (after its reply went out). */
void sub_start(struct sub *, struct sub_one *);

/* Connection conn has gone: drop its subscriptions. */
void sub_closed(struct sub *, uint64_t conn);

/* Counters for `perf dump`: subscriptions now, pushes sent. */
void sub_stats(const struct sub *, uint64_t *nsubs, uint64_t *pushes);

#endif /* SUB_H */
