#!/bin/sh
# Write the cluster variant of a users.acl file to stdout:
#
#   deploy/redis/cluster-acl.sh deploy/redis/users.acl > deploy/redis/users-cluster.acl
#
# Every user that talks to Redis through a cluster client (all but default and
# healthcheck) gains +command +cluster|slots +asking, the commands redis-py's
# RedisCluster (and go-redis' ClusterClient, in KEDA) send on top of the user's
# own: COMMAND and CLUSTER SLOTS on connect, ASKING while a slot migrates. The producer
# and the worker also get +wait: on a cluster they WAIT for a replica after each write
# (SHOWDOWN_WAIT_REPLICAS=1, as deploy/k8s-cluster and compose's cluster profile set it). A
# "replica" user is appended: the replicas log in to their master as it
# (masteruser/masterauth in deploy/redis/cluster.conf), with the throwaway demo
# password's hash unless make-secrets.sh --cluster replaces it.
# tests/ops/test_acl_cluster.py fails when users-cluster.acl is not this script's output.
set -eu
if [ "$#" -ne 1 ]; then
  echo "usage: $0 USERS_ACL" >&2
  exit 64
fi
sed -e '/^user default /b' -e '/^user healthcheck /b' \
    -e 's/^\(user [A-Za-z0-9_-]* on [^ ]* resetkeys resetchannels -@all\) /\1 +command +cluster|slots +asking /' \
    -e 's/^\(user producer .* +asking\) /\1 +wait /' -e 's/^\(user worker .* +asking\) /\1 +wait /' -- "$1"
# sha256 of throwaway-replica-password (deploy/compose/demo-secrets-cluster/replica.password)
echo 'user replica on #027b3b45e2e13dd3db7f175c895a0f61a4cf722ce7f27063c850f88e25852166 resetkeys resetchannels -@all +psync +replconf +ping'
