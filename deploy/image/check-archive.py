# Checks that a tarball is a loadable `docker save` image archive (what `docker load` / `podman load` read) holding the
# image NAME: manifest.json names NAME in an entry's RepoTags, that entry's config is a Linux image config, and every
# layer it lists is in the archive and hashes (uncompressed) to the config's diff_id for it. Exit 1 with the reason
# otherwise. Used by deploy/image/build.sh on what it wrote.
#   python3 deploy/image/check-archive.py IMAGE.tar NAME
import gzip, hashlib, json, sys, tarfile


def fail(why):
    print("image archive %s: %s" % (sys.argv[1], why), file=sys.stderr)
    sys.exit(1)


def short(name):
    # Docker writes images of Docker Hub without their registry (and official ones without library/)
    for prefix in ("docker.io/library/", "docker.io/"):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def diff_id(stream):
    head = stream.read(2)
    stream.seek(0)
    data = gzip.GzipFile(fileobj=stream) if head == b"\x1f\x8b" else stream
    h = hashlib.sha256()
    for chunk in iter(lambda: data.read(1 << 20), b""):
        h.update(chunk)
    return "sha256:" + h.hexdigest()


def main():
    if len(sys.argv) != 3:
        print("usage: check-archive.py IMAGE.tar NAME", file=sys.stderr)
        sys.exit(2)
    path, name = sys.argv[1], sys.argv[2]
    try:
        archive = tarfile.open(path)
    except (OSError, tarfile.TarError) as e:
        fail("not a tar file (%s)" % str(e).splitlines()[0].rstrip(":"))
    with archive:
        members = {m.name.lstrip("./"): m for m in archive.getmembers() if m.isfile()}

        def read(member):
            if member not in members:
                fail("%s is missing" % member)
            return archive.extractfile(members[member])

        try:
            manifest = json.load(read("manifest.json"))
        except ValueError as e:
            fail("manifest.json is not JSON (%s)" % e)
        entries = [e for e in manifest if short(name) in [short(t) for t in e.get("RepoTags") or []]]
        if not entries:
            fail("no image named %s (RepoTags: %s)" % (name, [e.get("RepoTags") for e in manifest]))
        entry = entries[0]
        config = json.load(read(entry["Config"]))
        if config.get("os") != "linux" or not config.get("architecture"):
            fail("the config is not a Linux image's (os %s, architecture %s)" % (config.get("os"), config.get("architecture")))
        expected = (config.get("rootfs") or {}).get("diff_ids") or []
        layers = entry.get("Layers") or []
        if not layers or len(layers) != len(expected):
            fail("%d layers for %d diff_ids in the config" % (len(layers), len(expected)))
        for layer, want in zip(layers, expected):
            got = diff_id(read(layer))
            if got != want:
                fail("layer %s hashes to %s, the config says %s" % (layer, got, want))
        print("image archive %s: %s, %d layers, %s" % (path, ", ".join(entry["RepoTags"]), len(layers),
              "/".join(filter(None, [config.get("os"), config.get("architecture")]))))


main()
