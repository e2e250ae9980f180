# The JDK AOT cache of a broker build (bench/scripts/aot-train.sh makes it), sourced by the scripts that start
# brokers and by the training:
#   java_release <java>                    prints the Java release of that java binary (21, 25, ...)
#   aot_jars <quarkus-app directory>       prints a fingerprint of the build's jars (name, size, modification time)
#   aot_option <quarkus-app directory or its quarkus-run.jar> <java>
#                                          prints -XX:AOTCache=<dir>/app.aot when that cache exists, was made for
#                                          exactly these jars (app.aot.jars holds their fingerprint), the JDK is 24
#                                          or later (older ones know no such option) and BROKER_AOT is not "off";
#                                          else nothing, saying on stderr why when a cache is there but not used.
# Why the fingerprint: JDK 25 checks that a cache was made by the same JDK, but not that the jars named by the
# launcher jar's Class-Path are the ones it was made from. Started with a cache of an earlier build, it loads that
# build's classes from the cache (measured: a changed application jar at the same path, every io.queen class
# "source: shared objects file"). A cache is only ever used for the jars it was made from.
java_release() {
  "$1" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1
}
aot_jars() {
  (cd "$1" && find . -name '*.jar' -printf '%P %s %T@\n' | LC_ALL=C sort | sha256sum | cut -d' ' -f1)
}
aot_option() {
  local d=$1 major
  [ -d "$d" ] || d=$(dirname "$d")
  [ "${BROKER_AOT:-auto}" != off ] && [ -s "$d/app.aot" ] || return 0
  major=$(java_release "$2")
  [ "${major:-0}" -ge 24 ] || return 0
  if [ "$(cat "$d/app.aot.jars" 2>/dev/null)" != "$(aot_jars "$d")" ]; then
    echo "aot: $d/app.aot was made for other jars than these; starting without it (./queen aot or bench/scripts/aot-train.sh makes a new one)" >&2
    return 0
  fi
  echo "-XX:AOTCache=$(cd "$d" && pwd)/app.aot"
}
