/*
 * osd_sim.h: simulated OSDs on a caller's event base, for `mapmon-bench
 * osd-sim`, the cold start benchmark (which runs it in process, so that it
 * times the bring-up exactly) and the ingest benchmark.
 *
 * What the simulator does, over one client connection (net/client.h):
 *
 *  1. subscribes to the osdmap (tools/osdmap_cache.h: the complete map and
 *     its placement, kept locally);
 *  2. on the first map, creates OSDs 0..nosds-1 where they do not exist
 *     (`osd create`) and boots those that are not up (`osd boot`), all
 *     requests in flight at once; OSD_SIM_BOOTED once the map shows every
 *     one of them up;
 *  3. for every PG of every pool whose primary (computed locally from the
 *     cached map, never asked) is one of its OSDs, sends binary PG reports
 *     (FRAME_BINARY_PG_REPORT, map/pgreport.h) moving the PG through
 *     peering, active, active+clean: one report per step, the next step
 *     once the monitor has answered the previous one (the monitor answers a
 *     report after the commit holding it is durable).  Pools created later
 *     and pg_num growth add PGs (the monitor has them "creating"); a map
 *     change that moves a PG's up set starts it over at peering on its new
 *     primary.  OSD_SIM_CLEAN each time every PG it reports has had its
 *     active+clean report accepted (again after new PGs appear);
 *  4. then, unless live_interval_ms < 0, carries on: every live_interval_ms
 *     (0: as soon as the previous one is answered) a new report of every
 *     clean PG, with growing objects, bytes and read/write counters.
 *
 * Reports go from one OSD each (its PGs only), at most `batch` PGs per
 * report and at most `window` reports unanswered at a time, round robin
 * over the OSDs with work.  reported_seq starts at the wall clock in
 * microseconds, so a simulator started again over the same cluster is not
 * taken for an old one.
 *
 * Everything runs on the base's thread.  Errors (a refused create or boot,
 * a dead connection, a refused report) are reported through the callback
 * as OSD_SIM_ERROR with a message; a connection error is final (the
 * simulator stops), the others are counted and the simulator goes on.
 */
#ifndef OSD_SIM_H
#define OSD_SIM_H

#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>

struct osd_sim;

struct osd_sim_params {
	const char *addr;		/* the monitor, "host:port" (copied) */
	int nosds;			/* OSDs 0 .. nosds-1, 1 .. 65536 */
	int window;			/* reports in flight, >= 1 */
	int batch;			/* most PGs in one report, >= 1 */
	int live_interval_ms;		/* < 0: stop reporting once clean */
	int connect_timeout_ms;		/* <= 0: none */
};

/* Defaults: 127.0.0.1:6788, 3 OSDs, window 16, batch 4096, live 1000 ms. */
void osd_sim_params_defaults(struct osd_sim_params *);

enum osd_sim_event {
	OSD_SIM_BOOTED,		/* every OSD of the simulator is up */
	OSD_SIM_CLEAN,		/* every PG reported active+clean, accepted */
	OSD_SIM_ERROR,		/* msg says what; fatal when the sim is dead */
};

/*
 * Called on the base's thread.  msg is borrowed (NULL for BOOTED and
 * CLEAN).  The callback may call osd_sim_free().
 */
typedef void osd_sim_cb(void *arg, enum osd_sim_event ev, const char *msg);

/* Counters, for status lines and the benchmarks. */
struct osd_sim_stats {
	uint32_t epoch;			/* of the cached osdmap; 0: none yet */
	int osds_up;			/* of the simulator's OSDs */
	int dead;			/* the connection is gone */
	size_t npgs;			/* PGs the simulator reports */
	size_t nclean;			/* of those, active+clean accepted */
	uint64_t reports_sent;
	uint64_t reports_answered;
	uint64_t pgs_sent;		/* PG stats in those reports */
	uint64_t pgs_accepted;		/* as the monitor's replies count */
	uint64_t pgs_unknown;
	uint64_t pgs_old;
	uint64_t errors;		/* refused requests */
	size_t inflight;		/* reports unanswered now */
};

/*
 * Start a simulator on base: connect to p->addr and go (the steps above).
 * Returns NULL with *cause (caller frees) when p is out of range; never
 * fails otherwise (connection errors come through cb).  Free it with
 * osd_sim_free().
 */
struct osd_sim *osd_sim_new(struct event_base *base,
    const struct osd_sim_params *p, osd_sim_cb *cb, void *arg,
    char **cause);

/* Fill *st with the counters so far. */
void osd_sim_stats(const struct osd_sim *, struct osd_sim_stats *st);

/* Close the connection and free everything.  NULL is allowed. */
void osd_sim_free(struct osd_sim *);

#endif /* OSD_SIM_H */
