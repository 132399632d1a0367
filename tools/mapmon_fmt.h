/*
 * mapmon_fmt.h: the plain-text output of mapmon(8), read like Ceph's.
 *
 * Each formatter takes a reply's data (the JSON shapes of mapmon(8)) and
 * writes text to a stream.  The formatters read the data leniently: a
 * member that is missing or of another type prints as empty or 0, never a
 * crash, so that an older or newer monitor still gives readable output.
 */
#ifndef MAPMON_FMT_H
#define MAPMON_FMT_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

/*
 * Write data, the reply to command prefix (its data, not its status), to f
 * in plain text.  The command object cmd (borrowed) tells the variant
 * ("health detail").  Commands without a plain form print data as indented
 * JSON; a null data prints nothing.
 */
void mapmon_fmt_plain(FILE *f, const char *prefix, const json_t *cmd,
    const json_t *data);

/*
 * Is the data of write command prefix meant for stdout in plain output
 * (`osd create` prints the new id)?  The status line of a write command
 * goes to stderr, as ceph's does; its data is printed only when this says
 * so.
 */
int mapmon_fmt_data_for_stdout(const char *prefix);

/*
 * Is the status of read command prefix printed on stderr, as Ceph's CLI
 * prints it (`osd getmap': "got osdmap epoch 5"; `pg dump': "dumped all";
 * `pg dump_stuck': "ok")?  Other reads' statuses are mapmon's own and are
 * not printed: their data is printed alone.
 */
int mapmon_fmt_status_to_stderr(const char *prefix);

/* One cluster log entry {"stamp","severity","message"} as a `log last` line. */
void mapmon_fmt_log_entry(FILE *f, const json_t *entry, const char *who);

/* A health object as one line: "HEALTH_WARN 1 osds down; ...". */
void mapmon_fmt_health_line(FILE *f, const json_t *health);

/*
 * The `pg map` line: "osdmap e5 pg 1.3f (1.3f) -> up [2,0,1] acting
 * [2,0,1]".
 */
void mapmon_fmt_pg_map(FILE *f, const json_t *data);

#endif /* MAPMON_FMT_H */
