/*
 * osd_sim.h: simulated OSDs on a caller's event base, for `mapmon-bench
 * osd-sim`, the cold start benchmark (which runs it in process, so that it
 * times the bring-up exactly), the ingest, bigpool and detect benchmarks.
 *
 * Sessions (net/client.h), as a cluster's OSDs and its operator have
 * them.  An admin session, with the credentials every client takes by
 * default (mclient_default_auth(): the keyring of MAPMON_KEYRING, or the
 * one a benchmark's monitor wrote), makes each OSD's key with `auth
 * get-or-create osd.N mon "allow profile osd"` (all asked at once: the
 * monitor commits them together), creates the OSDs, and holds the osdmap
 * subscription.  Each OSD then has a session of its own, authenticated as
 * osd.N with its own key, and sends its boot, beacons, PG reports,
 * failure reports and mark-me-down on it: the monitor's cap check (allow
 * profile osd: its own id only) sees what it would see of real OSDs.
 *
 * The subscription stays one, on the admin session: every OSD of one
 * process would decode the same map, so N subscriptions would measure the
 * simulator's decoding N times over rather than the monitor, which
 * serialises a push once whatever the count of subscribers (what sealing
 * costs a connection is in BENCHMARKS.md, "Authentication").
 *
 * An OSD whose session the monitor closes (`auth rotate osd.N`, `auth
 * rm`) says so (OSD_SIM_NOTICE), fetches its key again (`auth get osd.N`)
 * and opens a new session; one whose key cannot be had, or whose session
 * never opens (refused, max_connections), stops as if killed
 * (OSD_SIM_ERROR, told once until a session opens) and tries again when
 * revived.  With no_auth the OSDs' sessions offer no key (a monitor with
 * [auth] required = false, for what authentication costs).  A session
 * each means an open file each: osd_sim_new() raises the soft limit of
 * open files to the hard one, and refuses more OSDs than fit.
 *
 * What the simulator does:
 *
 *  1. subscribes to the osdmap (tools/osdmap_cache.h: the complete map and
 *     its placement, kept locally) and opens the OSDs' sessions;
 *  2. on the first map, creates OSDs 0..nosds-1 where they do not exist
 *     (`osd create`) and boots those that are not up (`osd boot`), all
 *     requests in flight at once, each boot once its OSD has a session;
 *     OSD_SIM_BOOTED once the map shows every one of them up;
 *  3. for every PG of every pool whose primary (computed locally from the
 *     cached map, never asked) is one of its running OSDs, sends binary PG
 *     reports (FRAME_BINARY_PG_REPORT, map/pgreport.h) moving the PG
 *     through peering, active, and its settled state: one report per step,
 *     the next step once the monitor has answered the previous one (the
 *     monitor answers a report after the commit holding it is durable).
 *     The settled state is active+clean when the up set is as long as the
 *     pool's size, active+undersized+degraded when it is shorter (with
 *     num_objects_degraded, the copies missing), undersized+degraded+peered
 *     below min_size; never active+clean with a short set.  Pools created
 *     later and pg_num growth add PGs (the monitor has them "creating"); a
 *     map change that moves a PG's up set starts it over at peering on its
 *     new primary, and when the new set has members the old one lacked
 *     (an OSD went down and another took its place, or came back), the
 *     "active" step is active+recovering+degraded, those members' copies
 *     counted degraded, then recovered.  OSD_SIM_CLEAN each time every PG
 *     it reports has had its active+clean report accepted (again after new
 *     PGs appear);
 *  4. then, unless live_interval_ms < 0, carries on: every live_interval_ms
 *     (0: as soon as the previous one is answered) a new report of every
 *     settled PG, with growing objects, bytes and read/write counters.  A
 *     PG stops gaining objects once one of its OSDs has used 3/4 of its
 *     store (osd_size), below the monitor's nearfull ratio: the simulated
 *     clients then write in place, so a long run does not fill the cluster;
 *  5. each running OSD heartbeats its peers, in process: the OSDs of the
 *     simulator that share a PG with it (the up sets of the cached map) and
 *     its neighbours by id among the simulator's up OSDs (the next and the
 *     previous five), so that a cluster without PGs detects failures too.
 *     Every heartbeat_interval_ms it pings them; a running peer answers at
 *     once, a killed or stopped one does not.  A peer unanswered for longer
 *     than heartbeat_grace_ms is reported with `osd failure` (failed_for:
 *     the seconds since its last answer), again every heartbeat interval
 *     until it answers (then a report with "cancel": true) or the map shows
 *     it down.  Only an OSD the map shows up reports, and only peers the
 *     map shows up.  The failures are checked every 100 ms (or every
 *     heartbeat interval when shorter), so a report leaves within 100 ms of
 *     the grace running out since the last answer;
 *  6. every beacon_interval_ms each running OSD the map shows up sends
 *     `osd beacon` with its statfs: total = osd_size; data = 4 MiB times
 *     the objects of every PG whose up set holds it (each member a whole
 *     copy); omap 1 KiB and meta 4 KiB an object, plus 256 MiB of meta;
 *     used their sum (at most total), avail = total - used;
 *  7. an OSD that is running and that the map shows down after it was up
 *     was wrongly marked down: it says so (OSD_SIM_NOTICE, "osd.N: map eE
 *     wrongly marked me down at eD", Ceph's words) and boots again.  Boots
 *     are not sent while the cached map has the noup flag (the next map
 *     without it boots them at once); a boot refused with -EBUSY (noup
 *     set meanwhile) is tried again 5 s later, told once per OSD.  At most
 *     one boot per OSD is in flight, and after an accepted boot the next
 *     waits a second for the map to show it.
 *
 * Reports go from one OSD each (its PGs only), at most `batch` PGs per
 * report and at most `window` reports unanswered at a time, round robin
 * over the OSDs with work.  reported_seq is a counter per PG that starts
 * at the wall clock in microseconds, so a simulator started again over the
 * same cluster is not taken for an old one; last_became_active is the
 * stamp of the report that made the PG active, last_clean that of its last
 * clean report.
 *
 * Killing an OSD (osd_sim_kill()) makes it silent at once: no heartbeat
 * answers, no reports, no beacons, no failure reports.  Reviving it boots
 * it again if the map shows it down.  A clean stop (osd_sim_stop_osd(),
 * osd_sim_stop()) silences it the same way and sends `osd mark-me-down`
 * for it, which the monitor answers after the commit.
 *
 * Everything runs on the base's thread.  Errors (a refused create or boot,
 * a dead connection, a refused report) are reported through the callback
 * as OSD_SIM_ERROR with a message; the admin session's end is final (the
 * simulator stops), the others are counted and the simulator goes on.  A
 * request refused the same way over and over (a monitor without `osd
 * failure`, say) is told once until one of its kind is accepted again.
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
	/*
	 * 0: boots carry no location (each OSD at a host of its own,
	 * mapmond(8)); H: OSD i boots at host=hostK, K = i * H / nosds,
	 * the OSDs spread evenly over H hosts, 1 .. nosds.
	 */
	int hosts;
	/*
	 * 0: the hosts under the root; R (with hosts, 1 .. hosts): host K
	 * in rack=rackQ, Q = K * R / hosts, the racks under root=default.
	 */
	int racks;
	int window;			/* reports in flight, >= 1 */
	int batch;			/* most PGs in one report, >= 1 */
	int live_interval_ms;		/* < 0: stop reporting once clean */
	int live_spread;		/* <= 1: every PG at each interval; N:
					   in N slices spread over it, by
					   primary OSD id modulo N */
	int connect_timeout_ms;		/* <= 0: none */
	int heartbeat_interval_ms;	/* >= 1 */
	int heartbeat_grace_ms;		/* >= 1 */
	int beacon_interval_ms;		/* >= 1 */
	uint64_t osd_size;		/* each OSD's store, bytes, >= 1 GiB */
	int no_auth;			/* no key offered, by any session */
};

/*
 * Defaults: 127.0.0.1:6788, 3 OSDs, window 16, batch 4096, live 1000 ms,
 * heartbeats every 1000 ms with a grace of 20000 ms, beacons every 5000
 * ms, stores of 100 GiB.
 */
void osd_sim_params_defaults(struct osd_sim_params *);

enum osd_sim_event {
	OSD_SIM_BOOTED,	 /* every OSD of the simulator is up */
	OSD_SIM_CLEAN,	 /* every PG reported active+clean, accepted */
	OSD_SIM_ERROR,	 /* msg says what; fatal when the sim is dead */
	OSD_SIM_NOTICE,	 /* msg: an OSD's event worth a log line */
	OSD_SIM_STOPPED, /* osd_sim_stop() is over; msg NULL or why not
				   every mark-me-down was answered */
};

/*
 * Called on the base's thread.  msg is borrowed (NULL for BOOTED and
 * CLEAN).  The callback may call osd_sim_free().
 */
typedef void osd_sim_cb(void *arg, enum osd_sim_event ev, const char *msg);

/* Counters, for status lines and the benchmarks. */
struct osd_sim_stats {
	uint32_t epoch;			/* of the cached osdmap; 0: none yet */
	int osds_up;	  /* of the simulator's OSDs, in the map */
	int osds_running; /* neither killed nor stopped */
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
	uint64_t failures_sent;		/* `osd failure` reports */
	uint64_t cancels_sent;		/* of those, cancels */
	uint64_t beacons_sent;
	uint64_t boots_sent;
	uint64_t wrongly_down;	   /* times a running OSD was marked down */
	size_t npeering;	   /* of npgs, whose current up set no
				  answered report carries yet */
	int64_t peering_done_mono; /* stamp_mono() when an answer last
				      brought npeering to 0 */
	int sessions;		   /* OSDs with an authenticated session */
	uint64_t sessions_lost;	   /* OSD sessions ended, the monitor's
				      closes included */
	uint64_t hb_rebuilds;	   /* heartbeat peer sets computed */
	double hb_rebuild_ms;	   /* the last one took */
};

/* What the simulator knows of one of its OSDs (osd_sim_osd()). */
enum osd_sim_osd_state {
	OSD_SIM_RUNNING,	 /* answering, reporting */
	OSD_SIM_KILLED,		 /* osd_sim_kill() */
	OSD_SIM_STOPPED_CLEANLY, /* osd_sim_stop_osd() or _stop() */
};

struct osd_sim_osd_info {
	enum osd_sim_osd_state state;
	int exists;    /* in the cached map */
	int up;	       /* up in the cached map */
	int booting;   /* a create or boot in flight */
	size_t pgs;    /* in up sets, at the last beacon tick */
	uint64_t used; /* its statfs then */
	uint64_t total;
	int peers; /* heartbeat peers */
};

/*
 * Start a simulator on base: connect to p->addr and go (the steps above).
 * Returns NULL with *cause (caller frees) when p is out of range or the
 * limit of open files cannot hold a session per OSD; never fails
 * otherwise (connection errors come through cb).  Free it with
 * osd_sim_free().
 */
struct osd_sim *osd_sim_new(struct event_base *base,
    const struct osd_sim_params *p, osd_sim_cb *cb, void *arg,
    char **cause);

/* Fill *st with the counters so far. */
void osd_sim_stats(const struct osd_sim *, struct osd_sim_stats *st);

/*
 * Fill *info for OSD id.  Returns 0, or -1 when id is not one of the
 * simulator's.
 */
int osd_sim_osd(const struct osd_sim *, int32_t id,
    struct osd_sim_osd_info *info);
/*
 * The host OSD id boots at ("host3") into buf: 0, or -1 when the
 * simulator sends no locations or there is no such OSD.
 */
int osd_sim_host(const struct osd_sim *, int32_t id, char *buf, size_t len);
/*
 * The rack OSD id boots in ("rack3") into buf: 0, or -1 when the simulator
 * has no racks or there is no such OSD.
 */
int osd_sim_rack(const struct osd_sim *, int32_t id, char *buf, size_t len);

/*
 * Kill OSD id: silent from now on, as a process killed with SIGKILL.
 * Returns 0, or -1 with *cause (caller frees) when id is not one of the
 * simulator's or is not running, or a clean stop of every OSD has begun.
 */
int osd_sim_kill(struct osd_sim *, int32_t id, char **cause);

/*
 * Start OSD id again (killed or stopped): it answers and reports again,
 * and boots when the map shows it down.  Returns 0, or -1 with *cause when
 * id is not one of the simulator's or is running, or a clean stop of
 * every OSD has begun.
 */
int osd_sim_revive(struct osd_sim *, int32_t id, char **cause);

/*
 * Stop OSD id cleanly: silent from now on, and `osd mark-me-down` sent
 * when the map shows it up; the answer comes as OSD_SIM_NOTICE (or
 * OSD_SIM_ERROR when refused).  Returns 0, or -1 with *cause as
 * osd_sim_kill().
 */
int osd_sim_stop_osd(struct osd_sim *, int32_t id, char **cause);

/*
 * Change live_interval_ms and live_spread (osd_sim_params) from now on:
 * the load of a benchmark that measures in two regimes.
 */
void osd_sim_set_live(struct osd_sim *, int interval_ms, int spread);

/*
 * Stop every running OSD cleanly (as osd_sim_stop_osd()) and stop
 * reporting; OSD_SIM_STOPPED once every mark-me-down is answered, or after
 * timeout_ms with a message saying how many were not, from the event loop
 * (never from within this call).  A second call does nothing.
 */
void osd_sim_stop(struct osd_sim *, int timeout_ms);

/* Close the sessions and free everything.  NULL is allowed. */
void osd_sim_free(struct osd_sim *);

#endif /* OSD_SIM_H */
