/*
 * bytes.h: byte counts for people, as Ceph writes them ("0 B", "1023 B",
 * "1.5 KiB", "12 MiB", "16 EiB"): 1024-based units up to EiB, one decimal
 * below 10 of a unit and none from 10 on.  The one formatter of the tree:
 * the CLI's status and pg stat, mapmon-store's stat and compact, and the
 * monitor's health details all show sizes through it.
 */
#ifndef BYTES_H
#define BYTES_H

#include <stddef.h>
#include <stdint.h>

/* Room for every form (the longest is "1024 KiB") and its NUL. */
#define BYTES_BUFSIZE 16

/* Formats bytes into buf (len bytes, cut to fit); returns buf. */
char *bytes_format(uint64_t bytes, char *buf, size_t len);

#endif /* BYTES_H */
