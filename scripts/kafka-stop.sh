#!/usr/bin/env bash
# Stops the broker started by kafka-start.sh, by the pid it recorded (SIGTERM, then SIGKILL
# after 30 s). Data stays in .cache/kafka/data; remove that folder for a clean slate.
set -euo pipefail
source "$(dirname "$0")/kafka-env.sh"

if ! broker_running; then
  rm -f "$KAFKA_PID_FILE"
  echo "kafka-stop: not running"
  exit 0
fi
pid="$(cat "$KAFKA_PID_FILE")"
kill -TERM "$pid"
for _ in $(seq 1 60); do
  kill -0 "$pid" 2>/dev/null || { rm -f "$KAFKA_PID_FILE"; echo "kafka-stop: stopped (pid $pid)"; exit 0; }
  sleep 0.5
done
echo "kafka-stop: still running after 30 s; killing pid $pid" >&2
kill -KILL "$pid" 2>/dev/null || true
rm -f "$KAFKA_PID_FILE"
