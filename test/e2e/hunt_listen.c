/*
 * hunt_listen: a subscriber over a list of monitors (net/hunt.h), for
 * test/e2e/mon_quorum.sh.  Usage: hunt_listen MON_LIST
 *
 * Subscribes to the osdmap, the pgmap and the cluster log and prints one
 * line per push as it arrives, flushed:
 *
 *   osdmap EPOCH full|inc
 *   pgmap VERSION snap|since|delta
 *   log SEQ
 *   lost ADDR / connected ADDR
 *
 * so the test can check that epochs, versions and seqs follow each other
 * with no gap and no repeat across the monitors it was moved between.
 * Runs until SIGTERM or SIGINT (exit 0); credentials from MAPMON_KEYRING
 * (net/client.h).
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <jansson.h>

#include "net/hunt.h"

static struct event_base *base;

static void
on_event(void *arg, enum hunt_event ev, const char *addr, int err,
    const char *msg)
{
	(void)arg;
	(void)err;
	(void)msg;
	if (ev == HUNT_CONNECTED)
		printf("connected %s\n", addr);
	else if (ev == HUNT_LOST)
		printf("lost %s\n", addr);
	else if (ev == HUNT_REFUSED)
		printf("refused %s: %s\n", addr, msg);
	fflush(stdout);
}

static void
on_push(void *arg, json_t *obj)
{
	const char *what = json_string_value(json_object_get(obj, "what"));
	json_t *e;
	size_t i;

	(void)arg;
	if (what == NULL)
		return;
	if (strcmp(what, "osdmap") == 0)
		printf("osdmap %lld %s\n",
		    (long long)json_integer_value(
			json_object_get(obj, "epoch")),
		    json_object_get(obj, "full") != NULL ? "full" : "inc");
	else if (strcmp(what, "pgmap") == 0)
		printf("pgmap %lld %s\n",
		    (long long)json_integer_value(
			json_object_get(obj, "version")),
		    json_is_true(json_object_get(obj, "full")) ? "snap" :
			json_object_get(obj, "since") != NULL  ? "since" :
								 "delta");
	else if (strcmp(what, "log") == 0)
		json_array_foreach(json_object_get(obj, "entries"), i, e)
			printf("log %lld\n",
			    (long long)json_integer_value(
				json_object_get(e, "seq")));
	fflush(stdout);
}

static void
on_signal(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	event_base_loopbreak(base);
}

int
main(int argc, char **argv)
{
	struct event *sigterm, *sigint;
	struct hunt *h;
	char *cause = NULL;

	if (argc != 2) {
		fprintf(stderr, "usage: hunt_listen MON_LIST\n");
		return 64;
	}
	signal(SIGPIPE, SIG_IGN);
	base = event_base_new();
	if ((h = hunt_new(base, argv[1], 3000, on_event, NULL, &cause)) ==
	    NULL) {
		fprintf(stderr, "hunt_listen: %s\n", cause);
		return 64;
	}
	hunt_subscribe(h, "osdmap", -1, on_push, NULL);
	hunt_subscribe(h, "pgmap", -1, on_push, NULL);
	hunt_subscribe(h, "log", 0, on_push, NULL);
	sigterm = evsignal_new(base, SIGTERM, on_signal, NULL);
	sigint = evsignal_new(base, SIGINT, on_signal, NULL);
	evsignal_add(sigterm, NULL);
	evsignal_add(sigint, NULL);
	event_base_dispatch(base);
	hunt_free(h);
	event_free(sigterm);
	event_free(sigint);
	event_base_free(base);
	return 0;
}
