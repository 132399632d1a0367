/*
 * metrics.c: Prometheus text exposition at /metrics, through evhttp.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "conf/conf.h"
#include "daemon/forward.h"
#include "daemon/metrics.h"
#include "daemon/quorum.h"
#include "daemon/quorum_aio.h"
#include "mon/mon_quorum.h"
#include "mon/mon.h"
#include "map/osdmap.h"
#include "map/pg.h"
#include "map/pgmap.h"
#include "net/server.h"
#include "store/store.h"

#define METRICS_MAX_HEADERS 8192
#define METRICS_TIMEOUT_S 30

struct metrics {
	struct evhttp *http;
	struct mon *mon;
	struct server *srv;
	const struct forward *fwd;
	uint16_t port;
	uint64_t scrapes;
};

/* "# HELP" and "# TYPE" of one family. */
static void
metrics_family(struct evbuffer *out, const char *name, const char *type,
    const char *help)
{
	evbuffer_add_printf(out, "# HELP mapmon_%s %s\n# TYPE mapmon_%s %s\n",
	    name, help, name, type);
}

/* A family of one sample without labels. */
static void
metrics_one(struct evbuffer *out, const char *name, const char *type,
    const char *help, uint64_t v)
{
	metrics_family(out, name, type, help);
	evbuffer_add_printf(out, "mapmon_%s %llu\n", name,
	    (unsigned long long)v);
}

/* A family of one sample in seconds, from microseconds. */
static void
metrics_seconds(struct evbuffer *out, const char *name, const char *type,
    const char *help, uint64_t us)
{
	metrics_family(out, name, type, help);
	evbuffer_add_printf(out, "mapmon_%s %.6f\n", name, (double)us / 1e6);
}

/* A label value with \\, \" and \n escaped, as the format wants. */
static void
metrics_label(struct evbuffer *out, const char *v)
{
	for (; *v != '\0'; v++) {
		if (*v == '\\' || *v == '"')
			evbuffer_add_printf(out, "\\%c", *v);
		else if (*v == '\n')
			evbuffer_add(out, "\\n", 2);
		else
			evbuffer_add(out, v, 1);
	}
}

/*
 * The commit latency histogram.  commit_hist[i] counts the commits that
 * took less than 2^i ms (and at least 2^(i-1) ms), the last bucket those
 * past 2^14 ms: cumulative buckets with le = 2^i ms, then +Inf.
 */
static void
metrics_commit_hist(struct evbuffer *out, const struct mon_perf *p)
{
	uint64_t cum = 0;
	size_t i, n = nitems(p->commit_hist);

	metrics_family(out, "commit_latency_seconds", "histogram",
	    "Time to write one proposal durably to the store.");
	for (i = 0; i + 1 < n; i++) {
		cum += p->commit_hist[i];
		evbuffer_add_printf(out,
		    "mapmon_commit_latency_seconds_bucket{le=\"%g\"} %llu\n",
		    (double)(1ULL << i) / 1000.0, (unsigned long long)cum);
	}
	cum += p->commit_hist[n - 1];
	evbuffer_add_printf(out,
	    "mapmon_commit_latency_seconds_bucket{le=\"+Inf\"} %llu\n"
	    "mapmon_commit_latency_seconds_sum %.6f\n"
	    "mapmon_commit_latency_seconds_count %llu\n",
	    (unsigned long long)cum, (double)p->commit_us_total / 1e6,
	    (unsigned long long)cum);
}

static void
metrics_store(struct evbuffer *out, struct mon *m)
{
	struct store_stats st;
	struct store *store = mon_store(m);
	char *cause = NULL;

	if (store_stat(store, &st, &cause) != 0) {
		/* Leave the families out rather than show a wrong figure. */
		dout(LOG_MON, 1, "metrics: store stat: %s",
		    cause != NULL ? cause : "failed");
		free(cause);
		return;
	}
	metrics_family(out, "store_bytes", "gauge",
	    "Bytes of the files of the monitor's store.");
	evbuffer_add_printf(out, "mapmon_store_bytes{backend=\"");
	metrics_label(out, st.backend);
	evbuffer_add_printf(out, "\"} %llu\n",
	    (unsigned long long)st.disk_bytes);
	if (st.records >= 0)
		metrics_one(out, "store_records", "gauge",
		    "Records in the monitor's store.", (uint64_t)st.records);
	store_stats_free(&st);
}

static void
metrics_pgs(struct evbuffer *out, struct mon *m)
{
	const struct pgmap *pm = mon_pgmap(m);
	char buf[PG_STATE_BUFSIZE];
	size_t i;

	metrics_one(out, "pgs", "gauge", "Placement groups in the PG map.",
	    pm->sums.num_pgs);
	metrics_family(out, "pgs_by_state", "gauge",
	    "Placement groups by state, as ceph pg stat names them.");
	for (i = 0; i < pm->nstates; i++) {
		if (pm->states[i].count == 0)
			continue;
		pg_state_format(pm->states[i].state, buf, sizeof buf);
		evbuffer_add_printf(out, "mapmon_pgs_by_state{state=\"");
		metrics_label(out, buf);
		evbuffer_add_printf(out, "\"} %llu\n",
		    (unsigned long long)pm->states[i].count);
	}
}

static void
metrics_server(struct evbuffer *out, struct server *srv)
{
	struct server_stats st;

	server_stats(srv, &st);
	metrics_one(out, "connections", "gauge",
	    "Client connections open now.", st.connections);
	metrics_one(out, "connections_accepted_total", "counter",
	    "Client connections accepted since start.", st.accepted);
	metrics_one(out, "connections_rejected_total", "counter",
	    "Client connections refused: max_connections or out of "
	    "descriptors.", st.rejected);
	metrics_family(out, "connections_closed_total", "counter",
	    "Client connections the monitor closed, by reason.");
	evbuffer_add_printf(out,
	    "mapmon_connections_closed_total{reason=\"slow\"} %llu\n"
	    "mapmon_connections_closed_total{reason=\"idle\"} %llu\n"
	    "mapmon_connections_closed_total{reason=\"protocol\"} %llu\n",
	    (unsigned long long)st.closed_slow,
	    (unsigned long long)st.closed_idle,
	    (unsigned long long)st.closed_bad);
	metrics_one(out, "frames_received_total", "counter",
	    "Frames received from clients.", st.frames_in);
	metrics_one(out, "frames_sent_total", "counter",
	    "Frames sent to clients.", st.frames_out);
	metrics_one(out, "bytes_received_total", "counter",
	    "Bytes received from clients.", st.bytes_in);
	metrics_one(out, "bytes_sent_total", "counter",
	    "Bytes sent to clients.", st.bytes_out);
	metrics_one(out, "partial_input_bytes", "gauge",
	    "Bytes of partly received frames held now.", st.partial_bytes);
	metrics_one(out, "partial_input_granted_bytes", "gauge",
	    "Bytes of max_partial_input granted to frames being received.",
	    st.partial_granted);
	metrics_one(out, "partial_input_paused_total", "counter",
	    "Times a connection stopped being read to wait for "
	    "max_partial_input.", st.partial_paused);
	metrics_one(out, "pg_reports_held_total", "counter",
	    "Times a connection's binary PG report waited unread, the "
	    "pending proposal full while another was committed.",
	    st.binary_held);
}

/* Several monitors (quorum.h): the engine's figures. */
static void
metrics_quorum(struct evbuffer *out, struct mon *m, const struct forward *fwd)
{
	struct forward_stats fs;
	struct quorum *q = quorum_current();
	struct quorum_stats st;
	struct mon_quorum_info in;

	if (q == NULL || mon_quorum_info(m, &in) == -1)
		return;
	quorum_stats(q, &st);
	metrics_one(out, "quorum_term", "gauge",
	    "The Raft term (the election epoch).", st.term);
	metrics_one(out, "quorum_leader", "gauge",
	    "1 when this monitor leads the quorum.", (uint64_t)st.is_leader);
	metrics_one(out, "quorum_leader_changes_total", "counter",
	    "Times a new leader was seen.", st.leader_changes);
	metrics_one(out, "quorum_commit_entry", "gauge",
	    "The newest replicated entry known committed.", in.committed_index);
	metrics_one(out, "quorum_applied_entry", "gauge",
	    "The newest replicated entry applied to the store.",
	    in.applied_index);
	metrics_one(out, "quorum_apply_backlog", "gauge",
	    "Committed entries not yet applied.", in.backlog);
	metrics_one(out, "quorum_entries_proposed_total", "counter",
	    "Entries this monitor proposed as leader.", in.entries_sealed);
	metrics_one(out, "quorum_entry_bytes_total", "counter",
	    "Bytes of the entries this monitor proposed.",
	    in.entry_bytes_total);
	metrics_one(out, "quorum_entry_raw_bytes_total", "counter",
	    "Bytes of those entries' encodings before compression.",
	    in.entry_raw_bytes_total);
	metrics_one(out, "quorum_entry_bytes_max", "gauge",
	    "The largest entry this monitor proposed, in bytes.",
	    in.entry_bytes_max);
	metrics_one(out, "quorum_proposals_split_total", "counter",
	    "Commits this monitor proposed as several part entries.",
	    in.proposals_split);
	metrics_one(out, "quorum_parts_dropped_total", "counter",
	    "Part entries dropped here: their commit never had its last part.",
	    in.parts_dropped);
	metrics_one(out, "quorum_decodes_total", "counter",
	    "Other monitors' commits decoded by the codec thread.", in.decodes);
	metrics_seconds(out, "quorum_decode_seconds_total", "counter",
	    "Time the codec thread spent decoding other monitors' commits.",
	    in.decode_us);
	metrics_one(out, "quorum_appends_dropped_total", "counter",
	    "Entry messages to a follower dropped, not sent: it was behind.",
	    st.appends_dropped);
	metrics_one(out, "quorum_outcome_unknown_total", "counter",
	    "Proposals whose writers were told the outcome is unknown.",
	    in.unknown_outcomes);
	metrics_one(out, "quorum_read_indexes_total", "counter",
	    "Linearizable reads this monitor confirmed as leader.",
	    st.read_index_reads);
	metrics_one(out, "quorum_read_index_barriers_total", "counter",
	    "Barrier entries that confirmed them (one per batch).",
	    st.read_index_barriers);
	metrics_seconds(out, "quorum_loop_slice_max_seconds", "gauge",
	    "The longest single turn of the engine's loop.",
	    st.uv_slice_max_us);
	metrics_one(out, "quorum_log_contexts_ended_total", "counter",
	    "Raft log AIO contexts ended by a thread, not the loop.",
	    quorum_aio_deferred_total());
	if (fwd == NULL)
		return;
	forward_stats(fwd, &fs);
	metrics_one(out, "forward_writes_total", "counter",
	    "Writes this monitor sent on to the leader.", fs.forwarded);
	metrics_one(out, "forward_outcome_unknown_total", "counter",
	    "Forwarded writes answered ETIMEDOUT: the outcome unknown.",
	    fs.unknown);
	metrics_one(out, "forward_linearizable_reads_total", "counter",
	    "Reads that asked the leader for its commit index first.",
	    fs.read_indexes);
	metrics_seconds(out, "forward_apply_wait_max_seconds", "gauge",
	    "The longest wait, after the leader answered a forwarded write, "
	    "for this monitor to apply it.",
	    fs.apply_wait_us_max);
}

void
metrics_format(struct mon *m, struct server *srv, const struct forward *fwd,
    uint64_t scrapes, struct evbuffer *out)
{
	struct mon_perf p;
	const struct osdmap *om = mon_osdmap(m);
	unsigned num, up, in, up_in;

	mon_perf(m, &p);
	metrics_commit_hist(out, &p);
	metrics_one(out, "commit_failures_total", "counter",
	    "Proposals whose store write failed.", p.commit_failures);
	metrics_family(out, "proposal_ops", "summary",
	    "Changes per committed proposal (sum: changes, count: "
	    "proposals).");
	evbuffer_add_printf(out, "mapmon_proposal_ops_sum %llu\n"
	    "mapmon_proposal_ops_count %llu\n",
	    (unsigned long long)p.proposals_ops_total,
	    (unsigned long long)p.commits);
	metrics_one(out, "pg_updates_total", "counter",
	    "PG stat updates committed.", p.pg_updates);
	metrics_one(out, "osdmap_epoch", "gauge",
	    "Epoch of the committed osdmap.", om->epoch);
	metrics_one(out, "pgmap_version", "gauge",
	    "Version of the committed PG map.", mon_pgmap_version(m));
	metrics_store(out, m);
	metrics_pgs(out, m);
	metrics_one(out, "pools", "gauge", "Pools in the osdmap.",
	    om->npools);
	osdmap_counts(om, &num, &up, &in, &up_in);
	metrics_one(out, "osds", "gauge", "OSDs in the osdmap.", num);
	metrics_one(out, "osds_up", "gauge", "OSDs marked up.", up);
	metrics_one(out, "osds_in", "gauge", "OSDs marked in.", in);
	metrics_one(out, "health_status", "gauge",
	    "Cluster health: 0 HEALTH_OK, 1 HEALTH_WARN, 2 HEALTH_ERR.",
	    (uint64_t)mon_health_status(m));
	if (srv != NULL)
		metrics_server(out, srv);
	metrics_quorum(out, m, fwd);
	metrics_one(out, "log_entries_gathered_total", "counter",
	    "Debug log entries gathered into the in-memory ring.",
	    log_gathered_count());
	metrics_one(out, "scrapes_total", "counter",
	    "Requests for /metrics answered.", scrapes);
	metrics_family(out, "build_info", "gauge",
	    "The version of mapmond; always 1.");
	evbuffer_add_printf(out, "mapmon_build_info{version=\"%s\"} 1\n",
	    PACKAGE_VERSION);
}

static void
metrics_request(struct evhttp_request *req, void *arg)
{
	struct metrics *mt = arg;
	struct evbuffer *out;
	const char *path;

	path = evhttp_uri_get_path(evhttp_request_get_evhttp_uri(req));
	if (path == NULL || strcmp(path, "/metrics") != 0) {
		evhttp_send_error(req, HTTP_NOTFOUND, "only /metrics is here");
		return;
	}
	switch (evhttp_request_get_command(req)) {
	case EVHTTP_REQ_GET:
	case EVHTTP_REQ_HEAD:
		break;
	default:
		evhttp_add_header(evhttp_request_get_output_headers(req),
		    "Allow", "GET, HEAD");
		evhttp_send_error(req, HTTP_BADMETHOD, "only GET and HEAD");
		return;
	}
	if ((out = evbuffer_new()) == NULL) {
		evhttp_send_error(req, HTTP_INTERNAL, NULL);
		return;
	}
	mt->scrapes++;
	metrics_format(mt->mon, mt->srv, mt->fwd, mt->scrapes, out);
	evhttp_add_header(evhttp_request_get_output_headers(req),
	    "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
	evhttp_send_reply(req, HTTP_OK, "OK", out);
	evbuffer_free(out);
}

struct metrics *
metrics_new(struct event_base *base, const char *bind, struct mon *m,
    struct server *srv, const struct forward *fwd, char **cause)
{
	struct metrics *mt;
	struct evhttp_bound_socket *bs;
	struct sockaddr_storage ss;
	socklen_t sslen = sizeof ss;
	char host[256], *why = NULL;
	uint16_t port;

	if (conf_parse_address(bind, host, sizeof host, &port, &why) == -1) {
		xasprintf(cause, "[metrics] bind '%s': %s", bind, why);
		free(why);
		return NULL;
	}
	mt = xcalloc(1, sizeof *mt);
	mt->mon = m;
	mt->srv = srv;
	mt->fwd = fwd;
	if ((mt->http = evhttp_new(base)) == NULL)
		fatalx("evhttp_new failed");
	evhttp_set_max_headers_size(mt->http, METRICS_MAX_HEADERS);
	evhttp_set_max_body_size(mt->http, 0);
	evhttp_set_timeout(mt->http, METRICS_TIMEOUT_S);
	evhttp_set_gencb(mt->http, metrics_request, mt);
	if ((bs = evhttp_bind_socket_with_handle(mt->http, host, port)) ==
	    NULL) {
		xasprintf(cause, "[metrics] bind %s: cannot listen: %s", bind,
		    evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
		evhttp_free(mt->http);
		free(mt);
		return NULL;
	}
	mt->port = port;
	if (getsockname(evhttp_bound_socket_get_fd(bs), (struct sockaddr *)&ss,
	    &sslen) == 0) {
		if (ss.ss_family == AF_INET)
			mt->port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
		else if (ss.ss_family == AF_INET6)
			mt->port =
			    ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	}
	return mt;
}

uint16_t
metrics_port(const struct metrics *mt)
{
	return mt->port;
}

void
metrics_free(struct metrics *mt)
{
	if (mt == NULL)
		return;
	evhttp_free(mt->http);
	free(mt);
}
