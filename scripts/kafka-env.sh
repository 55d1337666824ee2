# Shared settings of the local Kafka scripts (sourced, not run).
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KAFKA_VERSION="3.9.1"
KAFKA_HOME="$ROOT/.cache/kafka"          # ignored by git
KAFKA_LIBS="$KAFKA_HOME/libs-$KAFKA_VERSION"
KAFKA_DATA="$KAFKA_HOME/data"
KAFKA_PID_FILE="$KAFKA_HOME/broker.pid"
KAFKA_OUT="$KAFKA_HOME/broker.out"
KAFKA_HOST="127.0.0.1"                   # loopback only
KAFKA_PORT="${TRAJSCOPE_LOCAL_KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="$((KAFKA_PORT + 1))"

broker_running() {
  [[ -f "$KAFKA_PID_FILE" ]] || return 1
  local pid
  pid="$(cat "$KAFKA_PID_FILE")"
  [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && grep -q 'kafka.Kafka' "/proc/$pid/cmdline" 2>/dev/null
}
