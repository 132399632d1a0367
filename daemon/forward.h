/*
 * forward.h: what a follower of a quorum does for its clients' writes and
 * linearizable reads (mapmon-protocol(7), FORWARDING; Ceph's MForward).
 *
 * A write sent to a follower is checked against the client's caps there
 * (cmd.c), then sent to the leader inside {"prefix":"mon forward",
 * "entity":NAME,"cmd":CMD} (a binary request inside FRAME_BINARY_FORWARD)
 * over one connection authenticated as mon. with the monitors' key.  The
 * leader checks the command against NAME's caps again (it runs with no
 * more than the client's) and answers it as it would the client, with the
 * index of the last entry it had applied when it answered.  The follower
 * answers its client once it has applied that index itself, so the next
 * read on the client's connection sees the write.
 *
 * The answers a client may get beside the leader's own:
 *  - EAGAIN "no quorum" when the leader cannot be reached (the write was
 *    never sent);
 *  - ETIMEDOUT "outcome unknown" when the connection to the leader ends,
 *    or the leader changes, with the write sent and unanswered;
 *  - ETIMEDOUT when the leader acknowledged it but this monitor has not
 *    applied it within FORWARD_APPLY_WAIT_MS (it is committed: a retry is
 *    safe, Ceph's commands being idempotent).
 *
 * A linearizable read asks the leader for a read index (quorum.h: a
 * barrier through the engine confirms that it leads), waits until this
 * monitor has applied it, then runs the read here.
 *
 * Everything runs on the loop's thread.
 */
#ifndef FORWARD_H
#define FORWARD_H

#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>
#include <jansson.h>

struct mon;
struct forward;

/* The longest a follower waits to apply what the leader acknowledged. */
#define FORWARD_APPLY_WAIT_MS 10000

/* A forwarded request's answer: as mon.h's mon_done_cb (data stolen). */
typedef void forward_done_cb(void *arg, int rc, const char *status,
    json_t *data);

/* Forwarding for monitor m.  Never fails. */
struct forward *forward_new(struct event_base *, struct mon *m);

/*
 * Answer everything waiting -ESHUTDOWN (outcome unknown for what was
 * sent) and free it.  NULL is allowed.
 */
void forward_free(struct forward *);

/* 1 when writes are forwarded now: this monitor follows a known leader. */
int forward_wanted(const struct forward *);

/*
 * Forward the JSON command cmd (borrowed) of entity (NULL: a client with
 * no entity) to the leader; done(arg, ...) is called once, never from
 * inside this call.
 */
void forward_json(struct forward *, const char *entity, const json_t *cmd,
    forward_done_cb *done, void *arg);

/* The same for a binary request p[0..len) (its opcode first; copied). */
void forward_binary(struct forward *, const char *entity, const uint8_t *p,
    size_t len, forward_done_cb *done, void *arg);

/*
 * A linearizable read: ready(arg, 0, NULL, NULL) once this monitor has
 * applied the read index the leader gave (on the leader: its own), or
 * ready(arg, rc, why, NULL) with -EAGAIN (no quorum, the leader changed)
 * or -ETIMEDOUT.  Never called from inside this call.  With one monitor,
 * ready comes at once (on the next loop turn).
 */
void forward_read_index(struct forward *, forward_done_cb *ready, void *arg);

/*
 * Leader side: the answer to a forwarded request, rc, status and data
 * (stolen), wrapped with the index the leader has applied (a new
 * reference to give as the reply's data).
 */
json_t *forward_wrap(struct mon *m, json_t *data);

/* Counters for `perf dump' and the metrics. */
struct forward_stats {
	uint64_t forwarded;	    /* writes sent to the leader */
	uint64_t unknown;	    /* answered ETIMEDOUT, outcome unknown */
	uint64_t read_indexes;	    /* linearizable reads */
	uint64_t apply_wait_us_max; /* leader's answer to applied here */
};
void forward_stats(const struct forward *, struct forward_stats *out);

#endif /* FORWARD_H */
