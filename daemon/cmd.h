/*
 * cmd.h: the daemon's commands (mapmon(8)): one table, one dispatcher.
 *
 * Every command is a row of one static table (cmd.c): its prefix, its
 * argument signature, flags (read / write / admin / hidden), the handler,
 * a help line and a usage line.  Every generic check is made once, before
 * any handler runs:
 *
 *  - an unknown prefix is -EINVAL "unknown command 'x'", with "did you mean
 *    'y'?" when a prefix is close (by the rule of common/suggest.h);
 *  - the arguments are checked strictly against the signature: an unknown
 *    key, a missing required key, a wrong JSON type, a number out of bounds
 *    or a word that is not one of the choices is -EINVAL with a status
 *    naming the key and what was wrong with it.  The forms Ceph's clients
 *    send are taken: OSD ids as strings ("3", "osd.3"), "any" and "all"
 *    for every OSD where the table says so, a value as a string, and a
 *    "format" key, which the reply does not depend on.
 *
 * The same table answers {"prefix":"get_command_descriptions"} in the form
 * of mapmon-protocol(7) ("Command descriptions"), so the CLI's help and its argument
 * checking cannot drift from the daemon's, and it keeps, per command, the
 * calls, the refusals and the total time from dispatch to reply (for
 * `perf dump`).
 *
 * Binary requests (FRAME_BINARY_REQUEST) go through a second table, by
 * opcode: each opcode is the binary form of a JSON command and is counted
 * with it; an unknown opcode is -EOPNOTSUPP "unknown binary opcode N".
 *
 * Writes are answered after their commit (mon.h); a reply to a connection
 * that has gone by then is dropped.  The listings of PGs (`pg dump', `pg
 * ls', `pg dump_stuck') are written a slice at a time as their readers
 * take them, a reply in parts (server_reply_stream()).  Subscriptions live
 * in sub.h.
 *
 * Threads: everything runs on the event loop's thread, except the store
 * compaction of `store compact`, which runs on a thread of its own and is
 * answered on the loop when done.
 */
#ifndef CMD_H
#define CMD_H

#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>
#include <jansson.h>

struct conf;
struct mon;
struct server;
struct cmd_ctx;
struct cmd_entry;
struct forward;

/*
 * Apply the runtime keys of the running config (log levels, monitor
 * parameters, server limits), as SIGHUP does.  `config set` calls it after
 * changing a key.
 */
typedef void cmd_apply_cb(void *arg);

/*
 * A command context for the daemon: answers requests that reach the
 * server for monitor m.  conf is the running config (borrowed: `config
 * set` changes it in place, then calls apply(apply_arg)).  Subscriptions
 * are registered with m's notify hook.  Never fails (a missing eventfd for
 * the compaction thread is fatal).
 */
struct cmd_ctx *cmd_new(struct event_base *base, struct mon *m,
    struct conf *conf, cmd_apply_cb *apply, void *apply_arg);

/* The server to answer through; set once it exists, before requests. */
void cmd_set_server(struct cmd_ctx *, struct server *);

/* Its forwarding to the leader (forward.h), for the metrics. */
const struct forward *cmd_forwarder(const struct cmd_ctx *);

/*
 * Shut down in two steps.  cmd_stop(): end the listings being written
 * (server_end_streams(), -ESHUTDOWN), stop a running compaction at the end
 * of the key range it is compacting and wait for it until deadline (a
 * stamp_mono(), in microseconds; INT64_MAX: for as long as it takes), its
 * request dropped; then drop every subscription and unhook from the
 * monitor; 0.  Call it before mon_free(), which still answers the writes
 * it commits through this context.  -1 when the compaction still runs at
 * the deadline: nothing else is done, and the store must not be closed
 * under it.  cmd_free(): free the context (stopping it first if need be,
 * however long that takes); call it after mon_free() and before
 * server_free().  NULL is allowed.
 */
int cmd_stop(struct cmd_ctx *, int64_t deadline);
void cmd_free(struct cmd_ctx *);

/* The server_ops callbacks (arg is the struct cmd_ctx). */
void cmd_request(void *ctx, uint64_t conn_id, uint64_t req_id, json_t *cmd);
void cmd_binary(void *ctx, uint64_t conn_id, uint64_t req_id,
    const uint8_t *p, size_t len);
void cmd_closed(void *ctx, uint64_t conn_id);

/*
 * The generic checks alone (no monitor needed; tests and fuzzing): find
 * cmd's entry and check its arguments.  Returns 0, or a negative errno
 * (-EINVAL) with *status (caller frees) naming the problem.  *entry is the
 * command's entry whenever its prefix is known, even when its arguments
 * are refused (so that the refusal is counted against it), else NULL.
 */
int cmd_check(json_t *cmd, const struct cmd_entry **entry, char **status);

/* The entry's prefix. */
const char *cmd_entry_prefix(const struct cmd_entry *);

/* {"commands": [DESC...]}, as mapmon-protocol(7) describes it (new reference). */
json_t *cmd_descriptions(void);

/*
 * `mon sync' (cmd_sync.c): whether a copy of the store is being made for
 * another monitor (the store must then not be replaced under it); and the
 * end of the copy (removed; a copy running is waited for), from
 * cmd_stop().
 */
int cmd_sync_copying(void);
void cmd_sync_free(void);

#endif /* CMD_H */
