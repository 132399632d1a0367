/*
 * sim_ctl.h: failures on demand for `mapmon-bench osd-sim`
 * (mapmon-bench(1)): kills and revivals at set times after the start
 * (--fail ID@SECONDS, --revive ID@SECONDS) and a control FIFO (--control
 * PATH) whose lines act on the running simulator:
 *
 *   kill ID...      the OSDs stop answering, as if killed with SIGKILL
 *   revive ID...    killed or stopped OSDs start again (and boot)
 *   kill-host NAME...    every OSD of the hosts (--hosts), at once
 *   revive-host NAME...  every OSD of the hosts again
 *   stop ID...      the OSDs stop cleanly: each marks itself down
 *   status          what the simulator knows, printed on its output
 *
 * An ID is a number or osd.N; blank lines and lines starting with # are
 * ignored.  What each line did goes to out, what was wrong with it to
 * err, as "mapmon-bench: osd-sim: control: ...".
 *
 * Everything runs on the event base's thread.
 */
#ifndef SIM_CTL_H
#define SIM_CTL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <event2/event.h>

struct osd_sim;
struct sim_ctl;

/* A kill or revival at a time after the start. */
struct sim_ctl_at {
	int32_t id;
	char host[32]; /* not empty: every OSD of this host, not id */
	long ms;       /* after sim_ctl_new() */
	int revive;    /* 0: kill */
};

/*
 * Parse "ID@SECONDS" (SECONDS whole or decimal) of option opt into *at;
 * otherwise print what is wrong and exit 64, as bench_arg_long().
 */
void sim_ctl_parse_at(const char *opt, const char *arg, int revive,
    struct sim_ctl_at *at);
/* The same for "HOST@SECONDS" (--fail-host, --revive-host). */
void sim_ctl_parse_host_at(const char *opt, const char *arg, int revive,
    struct sim_ctl_at *at);

/*
 * Control sim (borrowed) on base: the clock of the schedule starts now.
 * out and err are borrowed.  Never fails.
 */
struct sim_ctl *sim_ctl_new(struct event_base *base, struct osd_sim *sim,
    FILE *out, FILE *err);

/* Arm the n kills and revivals of at (copied). */
void sim_ctl_schedule(struct sim_ctl *, const struct sim_ctl_at *at, size_t n);

/*
 * Make the FIFO path (mode 0600; an existing FIFO is used as it is) and
 * read its lines from now on.  Returns 0, or -1 with *cause (caller frees)
 * when path exists and is not a FIFO or cannot be made or opened.  The
 * FIFO is opened for writing too, so that a writer closing it is not an
 * end of file.
 */
int sim_ctl_fifo(struct sim_ctl *, const char *path, char **cause);

/* Run one control line (its text, no newline); 0, or -1 when it was bad. */
int sim_ctl_line(struct sim_ctl *, const char *line);

/* Stop reading, remove the FIFO when sim_ctl_fifo() made it, free.  NULL
 * is allowed. */
void sim_ctl_free(struct sim_ctl *);

#endif /* SIM_CTL_H */
