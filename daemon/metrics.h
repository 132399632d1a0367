/*
 * metrics.h: the Prometheus endpoint of mapmond ([metrics] bind).
 *
 * An HTTP server (libevent's evhttp) on the daemon's own event base answers
 * GET (and HEAD) /metrics with the text exposition format, version 0.0.4:
 * for each family a "# HELP" and a "# TYPE" line, then its samples.  Every
 * scrape reads the committed state of the monitor on the loop thread, so
 * a scrape sees one consistent commit.  Families (all prefixed mapmon_):
 *
 *	commit_latency_seconds		histogram, from mon_perf's commit_hist
 *					(buckets 1 ms .. 16.384 s, doubling)
 *	commit_failures_total		counter
 *	proposal_ops			summary (_sum: changes committed,
 *					_count: commits): proposal sizes
 *	pg_updates_total		counter
 *	osdmap_epoch, pgmap_version	gauges
 *	store_bytes{backend}		gauge, the files of the store
 *	store_records			gauge, where the backend counts them
 *	pgs, pgs_by_state{state}	gauges ("active+clean", ...)
 *	pools				gauge
 *	osds, osds_up, osds_in		gauges
 *	health_status			gauge: 0 OK, 1 WARN, 2 ERR
 *	connections			gauge, client connections open now
 *	connections_accepted_total, connections_rejected_total,
 *	connections_closed_total{reason="slow"|"idle"|"protocol"}
 *	frames_received_total, frames_sent_total, bytes_received_total,
 *	bytes_sent_total		counters
 *	log_entries_gathered_total	counter (common/log.h)
 *	scrapes_total			counter, this endpoint's own
 *	build_info{version}		gauge, always 1
 *
 * Another path is answered 404, another method 405.  Requests are bounded
 * (headers 8 KiB, no body, 30 s timeout).
 *
 * Threads: the loop thread only.
 */
#ifndef METRICS_H
#define METRICS_H

#include <stdint.h>

#include <event2/buffer.h>
#include <event2/event.h>

struct forward;
struct metrics;
struct mon;
struct server;

/*
 * Listen on bind ("HOST:PORT", port 0 picks a free one, see
 * metrics_port()) and serve /metrics about m, srv (may be NULL: no
 * connection figures) and fwd (may be NULL: no forwarding figures) on
 * base.  Returns the endpoint, or NULL with *cause naming the address and
 * the reason (caller frees).  m, srv and fwd must outlive it.
 */
struct metrics *metrics_new(struct event_base *base, const char *bind,
    struct mon *m, struct server *srv, const struct forward *fwd, char **cause);

/* The port bound (the one chosen when bind gave port 0). */
uint16_t metrics_port(const struct metrics *);

/* Stop listening, drop open scrapes and free.  NULL is a no-op. */
void metrics_free(struct metrics *);

/*
 * Append the whole exposition text for m, srv and fwd (either may be NULL)
 * to out.  scrapes is the value shown as mapmon_scrapes_total.
 */
void metrics_format(struct mon *m, struct server *srv,
    const struct forward *fwd, uint64_t scrapes, struct evbuffer *out);

#endif /* METRICS_H */
