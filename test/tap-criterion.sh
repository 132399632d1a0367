#!/bin/sh
# Run one Criterion test binary with its report as TAP on stdout, so that
# automake's TAP driver counts every test case.  Criterion's own progress and
# the tests' stderr stay in the log.
exec "$@" --tap=- --ascii
