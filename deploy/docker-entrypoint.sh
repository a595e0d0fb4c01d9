#!/bin/sh
# Entrypoint of the showdown image: read the Redis password (and the API's tokens) from files, then run the command.
#
# Docker and compose secrets arrive as files (/run/secrets/<name>); showdown reads
# SHOWDOWN_REDIS_PASSWORD (and `showdown api` SHOWDOWN_API_TOKENS) from its environment.
# With SHOWDOWN_REDIS_PASSWORD_FILE (SHOWDOWN_API_TOKENS_FILE) set, this exports the file's
# content (without its trailing newline) as SHOWDOWN_REDIS_PASSWORD (SHOWDOWN_API_TOKENS)
# for the command only. Without them, the command runs unchanged (Kubernetes passes both
# as environment variables from Secrets).
set -eu

# from_file NAME: NAME from the file NAME_FILE names, if it names one (NAME is one of ours: no user input is eval'd).
from_file() {
  eval "file=\${$1_FILE:-} value=\${$1:-}"
  if [ -z "$file" ]; then
    return 0
  fi
  if [ -n "$value" ]; then
    echo "showdown-entrypoint: set $1 or $1_FILE, not both" >&2
    exit 64
  fi
  if ! value=$(cat -- "$file"); then
    echo "showdown-entrypoint: cannot read $1_FILE ($file)" >&2
    exit 66
  fi
  if [ -z "$value" ]; then
    echo "showdown-entrypoint: $file is empty" >&2
    exit 66
  fi
  eval "$1=\$value"
  export "$1"
  unset "$1_FILE"
}

from_file SHOWDOWN_REDIS_PASSWORD
from_file SHOWDOWN_API_TOKENS

if [ "$#" -eq 0 ]; then
  set -- showdown worker
fi
exec "$@"
