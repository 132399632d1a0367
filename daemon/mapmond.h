/* mapmond.h: what the daemon's files share. */
#ifndef MAPMOND_H
#define MAPMOND_H

#include "conf/conf.h"

#define MAPMOND_DEFAULT_CONF SYSCONFDIR "/mapmon/mapmon.conf"

/*
 * Load a config file, printing every error as FILE:LINE: message (to
 * stderr with to_stderr, else to the log).  With
 * must_exist 0 a missing file gives the built-in defaults.  Returns NULL
 * after logging when the file has errors.
 */
struct conf *mapmond_conf_load(const char *path, int must_exist,
    int to_stderr);

/* Apply [log] debug_<subsys> levels to the logging subsystem. */
void mapmond_apply_log_levels(const struct conf *);

/*
 * Apply every runtime key of c to the running daemon: log levels, the
 * monitor's parameters and the server's limits (SIGHUP, `config set`).
 */
void mapmond_apply_runtime(const struct conf *);

#endif
