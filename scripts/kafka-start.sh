#!/usr/bin/env bash
# Starts a single-node Kafka (KRaft, combined broker + controller) on 127.0.0.1:9092 for
# development and tests: fetches the jars on first use, formats the storage on first start,
# records the broker's pid, and returns once the broker answers metadata requests.
#   npm run kafka:start        (npm run kafka:stop stops it)
set -euo pipefail
source "$(dirname "$0")/kafka-env.sh"

mkdir -p "$KAFKA_HOME"
# One start at a time (test files may ask together); the others then find it running.
exec 9>"$KAFKA_HOME/start.lock"
flock -w 300 9
if broker_running; then
  echo "kafka-start: already running (pid $(cat "$KAFKA_PID_FILE")) on $KAFKA_HOST:$KAFKA_PORT"
  exit 0
fi
"$ROOT/scripts/kafka-fetch.sh"
mkdir -p "$KAFKA_HOME" "$KAFKA_DATA"

cat > "$KAFKA_HOME/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$KAFKA_HOST:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://$KAFKA_HOST:$KAFKA_PORT,CONTROLLER://$KAFKA_HOST:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://$KAFKA_HOST:$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$KAFKA_DATA
num.partitions=1
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=10
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
log.retention.hours=24
log.segment.bytes=268435456
message.max.bytes=10485760
PROPS

cat > "$KAFKA_HOME/log4j.properties" <<'PROPS'
log4j.rootLogger=WARN, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.server.KafkaRaftServer=INFO
log4j.logger.org.apache.kafka.clients=ERROR
log4j.logger.state.change.logger=ERROR
PROPS

CP="$KAFKA_LIBS/*"
JAVA_OPTS=(-Xms256m -Xmx768m -XX:+UseG1GC -Djava.awt.headless=true
  "-Dlog4j.configuration=file:$KAFKA_HOME/log4j.properties" "-Dkafka.logs.dir=$KAFKA_HOME")

if [[ ! -f "$KAFKA_DATA/meta.properties" ]]; then
  echo "kafka-start: formatting storage in $KAFKA_DATA"
  java "${JAVA_OPTS[@]}" -cp "$CP" kafka.tools.StorageTool format \
    -t "$(java -cp "$CP" kafka.tools.StorageTool random-uuid 2>/dev/null)" \
    -c "$KAFKA_HOME/server.properties" --ignore-formatted >/dev/null
fi

echo "kafka-start: starting Kafka $KAFKA_VERSION on $KAFKA_HOST:$KAFKA_PORT (log: $KAFKA_OUT)"
nohup java "${JAVA_OPTS[@]}" -cp "$CP" kafka.Kafka "$KAFKA_HOME/server.properties" \
  >"$KAFKA_OUT" 2>&1 </dev/null &
echo $! >"$KAFKA_PID_FILE"

# Wait (at most 90 s) until the broker answers a metadata request.
for _ in $(seq 1 180); do
  if ! broker_running; then
    echo "kafka-start: the broker exited; last lines of $KAFKA_OUT:" >&2
    tail -n 30 "$KAFKA_OUT" >&2
    rm -f "$KAFKA_PID_FILE"
    exit 1
  fi
  if node "$ROOT/scripts/kafka-ping.mjs" "$KAFKA_HOST:$KAFKA_PORT" 2>/dev/null; then
    echo "kafka-start: ready (pid $(cat "$KAFKA_PID_FILE"))"
    exit 0
  fi
  sleep 0.5
done
echo "kafka-start: the broker did not answer within 90 s; stopping it" >&2
"$ROOT/scripts/kafka-stop.sh" >&2 || true
exit 1
