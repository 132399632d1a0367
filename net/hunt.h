/*
 * hunt.h: a client session over a list of monitors (mapmon(8), MONITORS):
 * it connects to one that answers, and when that connection ends it hunts
 * for another, in turn, and resumes its subscriptions there, each from
 * the last position it had (mapmon-protocol(7), SUBSCRIPTIONS):
 *
 *  osdmap  from the last epoch: the monitor sends the incrementals after
 *          it (or the full map, when they are trimmed);
 *  pgmap   from the last version: the PGs changed since (or a snapshot);
 *  log     from the last entry's seq;
 *  health  anew (it is a state, not a stream).
 *
 * What the new monitor sends that the session already had (it may be
 * behind the monitor it left: an osdmap incremental of an epoch already
 * seen, a pgmap change of a version already seen, log entries already
 * seen) is dropped here, so the caller sees each epoch, version and entry
 * once, in order, with no gap: a monitor of the same quorum has the same
 * history.
 *
 * Monitors are tried in the order given, starting with the first (or the
 * one after the monitor lost); after a round in which none answered, the
 * next round waits HUNT_RETRY_MS, doubling up to HUNT_RETRY_MAX_MS.  The
 * session never gives up by itself.
 *
 * Requests are sent on the current connection and are not retried: one
 * whose connection ends gets the connection's error (net/client.h), and
 * its outcome is the caller's to judge.  Everything runs on the event
 * base's thread; callbacks may call any hunt_* function but hunt_free().
 */
#ifndef HUNT_H
#define HUNT_H

#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>
#include <jansson.h>

#include "net/client.h"

#define HUNT_RETRY_MS 100
#define HUNT_RETRY_MAX_MS 2000

struct hunt;

enum hunt_event {
	HUNT_CONNECTED, /* a monitor answered (addr): subscriptions resent */
	HUNT_LOST,	/* the connection to addr ended (err, msg) */
	HUNT_REFUSED,	/* a subscription was refused (err, msg) */
	HUNT_FAILED,	/* an attempt on addr failed (err, msg): -EACCES is
			   a refused key, which the next may refuse too */
};
typedef void hunt_event_cb(void *arg, enum hunt_event ev, const char *addr,
    int err, const char *msg);

/*
 * Split a list of monitors, "A,B,C" (commas or blanks between), each
 * HOST:PORT or NAME=HOST:PORT as [mon] mon_host writes them, into *addrs
 * (malloc'd, as each of its strings; the caller frees them) and *n.  0, or
 * -1 with *cause when the list is empty or an address is bad.
 */
int hunt_parse(const char *list, char ***addrs, size_t *n, char **cause);

/*
 * A session over the monitors of list (see hunt_parse()); it starts
 * connecting at once.  connect_timeout_ms bounds each attempt (<= 0:
 * none).  on_event (may be NULL) says what happens.  NULL with *cause
 * for a bad list.
 */
struct hunt *hunt_new(struct event_base *, const char *list,
    int connect_timeout_ms, hunt_event_cb *on_event, void *arg, char **cause);

/*
 * The name and key every connection of the session offers, as
 * mclient_set_name() and mclient_set_auth() (key NULL: none); without a
 * call, the client library's defaults.  Call before the loop runs.
 */
void hunt_set_name(struct hunt *, const char *name);
void hunt_set_auth(struct hunt *, const char *name, const uint8_t *key);

/*
 * Subscribe to what ("osdmap", "pgmap", "log", "health") from start
 * (< 0: none given, as the monitor's subscribe without START), now and on
 * every monitor the session moves to, resumed from the last position.
 * on_push gets every push (borrowed), but what the session already had.
 * 0, or -1 for an unknown what or more than HUNT_MAX_SUBS.
 */
#define HUNT_MAX_SUBS 8
int hunt_subscribe(struct hunt *, const char *what, int64_t start,
    mclient_push_cb on_push, void *arg);

/* A subscription's position: last epoch, version or seq; -1: none yet. */
int64_t hunt_position(const struct hunt *, const char *what);

/*
 * Send cmd (borrowed) on the current connection, cb with its reply (see
 * mclient_request()).  -1 when the session has no connection now (it is
 * between two attempts).
 */
int hunt_request(struct hunt *, const json_t *cmd, mclient_reply_cb cb,
    void *arg);

/* The current connection (NULL between attempts; it changes). */
struct mclient *hunt_client(struct hunt *);

/* The address of the current or last monitor (borrowed). */
const char *hunt_addr(const struct hunt *);

/* Monitors the session has lost since it started. */
uint64_t hunt_losses(const struct hunt *);

/* Close the connection and free the session.  NULL is allowed. */
void hunt_free(struct hunt *);

#endif /* HUNT_H */
