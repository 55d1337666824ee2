#!/usr/bin/env bash
# Resolves the Apache Kafka broker's jars (and a logging binding) from Maven Central into
# .cache/kafka/libs-<version> with `mvn dependency:copy-dependencies`. Nothing else is downloaded.
set -euo pipefail
source "$(dirname "$0")/kafka-env.sh"

if [[ -f "$KAFKA_LIBS/.complete" ]]; then
  exit 0
fi
command -v mvn >/dev/null || { echo "kafka-fetch: mvn (Maven) is needed: apt-get install -y maven" >&2; exit 1; }
command -v java >/dev/null || { echo "kafka-fetch: java 17 is needed: apt-get install -y openjdk-17-jre-headless" >&2; exit 1; }
echo "kafka-fetch: resolving Kafka $KAFKA_VERSION from Maven Central into $KAFKA_LIBS"
rm -rf "$KAFKA_LIBS"
mvn -q -B -f "$ROOT/scripts/kafka/pom.xml" -Dkafka.version="$KAFKA_VERSION" \
  dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$KAFKA_LIBS"
ls "$KAFKA_LIBS"/kafka_2.13-"$KAFKA_VERSION".jar >/dev/null
touch "$KAFKA_LIBS/.complete"
echo "kafka-fetch: $(ls "$KAFKA_LIBS" | wc -l) jars"
