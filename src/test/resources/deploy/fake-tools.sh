#!/usr/bin/env bash
# Stands in for podman, psql and curl (linked under those names) in the image smoke script's test: records each
# call in $FAKE_LOG and answers like the real tool would on a working host. FAKE_PUSH: the push answer;
# FAKE_IMAGES: image ids already present.
tool=$(basename "$0")
echo "$tool $*" >>"$FAKE_LOG"
case "$tool" in
  podman)
    [ "$1" = --runtime ] && shift 2
    case "$1" in
      images) printf '%s\n' ${FAKE_IMAGES:-} ;;
      load) echo "Loaded image: localhost/queen-broker:smoke" ;;
      image) echo "sha256:0123abcd" ;;
      run) echo "c0ffee" ;;
    esac
    ;;
  curl)
    case "$*" in
      *%{http_code}*) printf 200 ;;
      */api/v1/push*) printf '%s' "${FAKE_PUSH:-[{\"status\":\"queued\"}]}" ;;
      */api/v1/pop/*) printf '%s' '{"messages":[{"data":{"hello":"image"}}]}' ;;
    esac
    ;;
esac
exit 0
