#!/bin/sh
# Make fresh Redis passwords for a showdown deployment, and the ACL file that matches them.
#
#   deploy/make-secrets.sh DIR
#   deploy/make-secrets.sh --cluster DIR     (Redis Cluster: from deploy/redis/users-cluster.acl,
#                                             which adds the cluster grants and the replica user)
#
# Writes DIR/<user>.password (64 random hex characters, no newline: a Kubernetes
# Secret made with --from-file holds exactly the password) for every user of
# deploy/redis/users.acl that has a password, and DIR/users.acl: that file with
# each throwaway demo hash replaced by the sha256 of the new password; and, for `showdown api`,
# DIR/api.token (a fresh bearer token, every scope: give it to the API's first client) and
# DIR/api-tokens.json (its SHOWDOWN_API_TOKENS: the token's sha256, never the token). Then:
#   SHOWDOWN_SECRETS_DIR=DIR SHOWDOWN_REDIS_ACL_FILE=DIR/users.acl docker compose up -d
# or, on Kubernetes, load DIR/users.acl into Redis and the passwords into Secrets.
# DIR is created mode 0700 (its files are 0644, so that the non-root users inside the
# containers can read their bind-mounted copies); an existing users.acl is never overwritten.
set -eu

template="$(dirname -- "$0")/redis/users.acl"
if [ "$#" -eq 2 ] && [ "$1" = "--cluster" ]; then
  template="$(dirname -- "$0")/redis/users-cluster.acl"
  shift
fi
if [ "$#" -ne 1 ]; then
  echo "usage: $0 [--cluster] DIR" >&2
  exit 64
fi
dir=$1
if [ -e "$dir/users.acl" ]; then
  echo "$0: $dir/users.acl exists; not overwriting it" >&2
  exit 73
fi

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum; else shasum -a 256; fi | cut -d ' ' -f 1
}

mkdir -p -- "$dir"
chmod 0700 -- "$dir"
acl=$(cat -- "$template")
users=$(printf '%s\n' "$acl" | sed -n 's/^user \([A-Za-z0-9_-]*\) on #[0-9a-f]\{64\} .*/\1/p')
for user in $users; do
  password=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
  hash=$(printf '%s' "$password" | sha256)
  printf '%s' "$password" > "$dir/$user.password"
  chmod 0644 -- "$dir/$user.password"
  acl=$(printf '%s\n' "$acl" | sed "s/^user $user on #[0-9a-f]\{64\} /user $user on #$hash /")
  if ! printf '%s\n' "$acl" | grep -q "^user $user on #$hash "; then
    echo "$0: could not set the password of $user" >&2
    exit 70
  fi
done
printf '%s\n' "$acl" > "$dir/users.acl"
chmod 0644 -- "$dir/users.acl"
token=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
printf '%s' "$token" > "$dir/api.token"
printf '[{"name": "default", "sha256": "%s", "scopes": ["hands:read", "tournaments:read", "dead-letters:read"]}]\n' \
  "$(printf '%s' "$token" | sha256)" > "$dir/api-tokens.json"
chmod 0644 -- "$dir/api.token" "$dir/api-tokens.json"
echo "wrote $(printf '%s\n' $users | wc -l | tr -d ' ') passwords, users.acl and an API token (api.token, api-tokens.json) to $dir"
