#!/bin/sh
# Entrypoint of the showdown image: read the Redis password from a file, then run the command.
#
# Docker and compose secrets arrive as files (/run/secrets/<name>); showdown reads
# SHOWDOWN_REDIS_PASSWORD from its environment. With SHOWDOWN_REDIS_PASSWORD_FILE set,
# this exports the file's content (without its trailing newline) as SHOWDOWN_REDIS_PASSWORD
# for the command only. Without it, the command runs unchanged (Kubernetes passes the
# password as an environment variable from a Secret).
set -eu

if [ -n "${SHOWDOWN_REDIS_PASSWORD_FILE:-}" ]; then
  if [ -n "${SHOWDOWN_REDIS_PASSWORD:-}" ]; then
    echo "showdown-entrypoint: set SHOWDOWN_REDIS_PASSWORD or SHOWDOWN_REDIS_PASSWORD_FILE, not both" >&2
    exit 64
  fi
  if ! SHOWDOWN_REDIS_PASSWORD=$(cat -- "$SHOWDOWN_REDIS_PASSWORD_FILE"); then
    echo "showdown-entrypoint: cannot read SHOWDOWN_REDIS_PASSWORD_FILE ($SHOWDOWN_REDIS_PASSWORD_FILE)" >&2
    exit 66
  fi
  if [ -z "$SHOWDOWN_REDIS_PASSWORD" ]; then
    echo "showdown-entrypoint: $SHOWDOWN_REDIS_PASSWORD_FILE is empty" >&2
    exit 66
  fi
  export SHOWDOWN_REDIS_PASSWORD
  unset SHOWDOWN_REDIS_PASSWORD_FILE
fi

if [ "$#" -eq 0 ]; then
  set -- showdown worker
fi
exec "$@"
