# The two entry points of the README: `make demo` (set up, then run the demo) and `make test`.
# Everything is fetched through the ordinary clients: Maven for sbt, pip for Python packages.
SBT := build/sbt
JAR_DIR := python/src/pyspark_aof/jars
# One virtualenv per PySpark the suites run on: the newest (the demo, lint, benchmarks and the
# Spark 4 suites run there), the newest 3.x, and the oldest supported, for the demo. Their
# versions, with every other version of the Spark lines, are listed once in VERSIONS.
VERSIONS := python/src/pyspark_aof/versions.properties
include $(VERSIONS)
PYSPARK_4 := $(tested.newest)
PYSPARK_3 := $(tested.spark3)
PYSPARK_34 := $(tested.oldest)
VENV := .venv
VENV3 := .venv-spark3
VENV34 := .venv-spark34
PY := $(VENV)/bin/python
# Where each suite writes what failed in it (build/test-failures reads them).
REPORTS := jvm/target/scala-*/test-reports jvm/realtime/target/scala-*/test-reports \
  target/test-reports
# Spark's JARs of the newest PySpark: the Scala suites of the 2.13 line run on them.
SPARK4_JARS = $$($(PY) -c 'import pathlib, pyspark; print(pathlib.Path(pyspark.__file__).parent / "jars")')

.PHONY: setup system jar venvs demo test test-jvm test-jvm-4 test-jvm-3 test-model test-python \
  test-python-clusters test-python-local test-spark3 demo-oldest test-alone lint bench \
  bench-node-cost bench-fleet bench-realtime-start clean

setup: jar $(VENV)/.installed

# Both connector JARs, built into the Python package (build.sbt puts them there), and the same
# in ~/.m2 for `spark-submit --packages`; then Python's option fields, from the options they read.
jar:
	rm -f $(JAR_DIR)/*.jar
	$(SBT) +aof/package +aof/publishM2
	python3 python/generate_options.py

# A virtualenv with the package (editable, so it sees the JARs built later), its extras and one
# PySpark, made again when the package's dependencies or the versions change. Python compiles
# what is imported when it is first imported, not every module of every package at install: a
# third of the install's time.
define venv
$(1)/.installed: python/pyproject.toml $(VERSIONS)
	rm -rf $(1)
	python3 -m venv $(1)
	$(1)/bin/pip install -q --no-compile -e 'python$(2)' $(3)
	touch $$@
endef
# Spark Connect's client needs pandas; PySpark 4.3 warns that it does not fully support pandas 3
# yet and asks for an older one. The oldest PySpark runs the demo only: no test extras.
$(eval $(call venv,$(VENV),[test],'pyspark[connect]==$(PYSPARK_4)' 'pandas<3'))
$(eval $(call venv,$(VENV3),[test],'pyspark==$(PYSPARK_3)'))
$(eval $(call venv,$(VENV34),,'pyspark==$(PYSPARK_34)'))

demo: setup
	$(PY) -m pyspark_aof demo

# The JARs built beside the virtualenvs, then lint and the suites two at a time: the JVM suites
# wait on their writers and rotations more than they compute. Make starts them in the order
# named, the next as one ends, and prints each one's output as it ends. The order evens out the
# two slots: the newest line's JVM suites, then its other Python suites, in one; its Python
# cluster suites, then Spark 3's Python and JVM suites, in the other. Last, alone, the test that
# holds a latency to milliseconds. Where a test failed, its message again at the end.
test: system
	$(MAKE) -j2 jar venvs
	rm -rf $(REPORTS)
	$(MAKE) -j2 --output-sync=line test-jvm-4 test-python-clusters test-spark3 test-python-local \
	  test-jvm-3 demo-oldest lint || { build/test-failures; exit 1; }
	$(MAKE) test-alone || { build/test-failures; exit 1; }

venvs: $(VENV)/.installed $(VENV3)/.installed $(VENV34)/.installed

system:
	build/install-system-packages

# Each line's suites in an sbt session of its own; suites the Spark line cannot change run on the
# newest only (docs/internals.md, "The suites").
test-jvm: test-jvm-4 test-jvm-3

test-jvm-4: $(VENV)/.installed
	AOF_SPARK_JARS_2_13=$(SPARK4_JARS) $(SBT) scalafmtCheckAll ++2.13 aof/test realtime/test

test-jvm-3:
	$(SBT) ++2.12 aof/test

# The rotation model's long form (`make test` runs 20 seeds against the node's scanner, the
# planner and the reader, 20 through real-time mode's follower, and 2 on a real query): 500, 500
# and 100 seeds, on both Spark lines (about an hour); with it, 500 seeds of the change-reporting
# model (100 in `make test`). One seed again: AOF_MODEL_SEED=<seed> make test-model.
test-model: system $(VENV)/.installed
	AOF_MODEL_SEEDS=$${AOF_MODEL_SEEDS:-500} AOF_MODEL_SPARK_SEEDS=$${AOF_MODEL_SPARK_SEEDS:-100} \
	  AOF_EVERY_LINE=1 AOF_SPARK_JARS_2_13=$(SPARK4_JARS) \
	  $(SBT) "+aof/testOnly *.RotationModelSuite *.FollowerModelSuite *.SparkRotationModelSuite \
	  *.KubeletModelSuite *.ChangeReportingModelSuite"

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check python tests/python bench examples build/test-failures
	$(VENV)/bin/mypy --config-file python/pyproject.toml \
	  python/src python/generate_options.py tests/python examples bench build/test-failures

# The Python suites on the newest line, with the slowest tests named, less those marked `alone`:
# the modules that start clusters of their own (standalone, YARN), and the rest.
CLUSTER_SUITES := $(addprefix tests/python/,test_cluster.py test_every_node.py test_nodes.py \
  test_real_time_cluster.py test_secured.py test_yarn.py)
PYTEST_4 := $(VENV)/bin/pytest -q --durations=15 -m 'not alone'

test-python: test-python-clusters test-python-local

test-python-clusters: $(VENV)/.installed
	$(PYTEST_4) --junitxml=target/test-reports/python-clusters.xml $(CLUSTER_SUITES)

test-python-local: $(VENV)/.installed
	$(PYTEST_4) --junitxml=target/test-reports/python.xml $(CLUSTER_SUITES:%=--ignore=%) tests/python

# On Spark 3, the tests whose outcome the line can change (`both_lines`).
test-spark3: $(VENV3)/.installed
	$(VENV3)/bin/pytest -q --durations=15 -m 'not alone' \
	  --junitxml=target/test-reports/python-spark3.xml tests/python

# The demo on the oldest PySpark.
demo-oldest: $(VENV34)/.installed
	$(VENV34)/bin/python -m pyspark_aof demo --seconds 5 --rate 1000

# The tests that hold a duration to milliseconds, with nothing else running.
test-alone: $(VENV)/.installed
	$(VENV)/bin/pytest -q -m alone --junitxml=target/test-reports/python-alone.xml tests/python

# Every benchmark of bench/ on each Spark line; writes bench/results.md (about 25 minutes).
# The Kafka reference row fetches a broker with Maven on first use; `bench/run.py --no-kafka`
# leaves it out. Then the latency of real-time mode against micro-batch mode, on the newest Spark
# (bench/realtime.md, about 3 minutes), and to Python by two sinks (bench/realtime-python.md).
# Last, a node's own cost (bench-node-cost, below).
bench: setup $(VENV3)/.installed
	$(VENV3)/bin/python bench/run.py
	$(PY) bench/run.py
	AOF_SPARK_JARS_2_13=$(SPARK4_JARS) $(PY) bench/kafka_reference.py $(SBT) \
	  "+realtime/Test/runMain com.hx.spark.sql.connector.aof.bench.RealTimeLatency $(CURDIR)/bench/realtime.md 60 {broker}"
	$(PY) bench/python_sinks.py 30
	$(MAKE) bench-node-cost

# A node's own cost: the CPU of the executor and the driver, the executor's memory and
# descriptors, with the source reading one worker's files (a standalone cluster of one core),
# idle over 100 and 20,000 quiet files and under 1,000 and 10,000 lines a second, at each
# trigger, beside Spark's rate source and rsyslog's imfile on the same files; on the 3.x line,
# then the newest (real-time mode there too). Writes bench/node-cost.md (about half an hour a
# line; needs root). A part of it: `bench/node_cost.py --phases ... --triggers ... --seconds N`.
bench-node-cost: system setup $(VENV3)/.installed
	$(VENV3)/bin/python bench/node_cost.py
	$(PY) bench/node_cost.py

# The driver's triggers against 10 to 10,000 simulated nodes of 100 files each (1% or 10% of
# them changing a trigger), and one node of 10,000 files, on a real ZooKeeper server; then the
# checkpoint's size over 10,000 batches; writes bench/fleet.md and bench/checkpoint.md (about
# half an hour).
bench-fleet: setup
	build/sbt "aof/Test/runMain com.hx.spark.sql.connector.aof.bench.FleetPlanning $(CURDIR)/bench/fleet.md 10@10 100@1 1000@1 1000@10 10000@1 10000@10 1x10000@100" \
	  "aof/Test/runMain com.hx.spark.sql.connector.aof.bench.CheckpointGrowth $(CURDIR)/bench/checkpoint.md"

# A real-time batch's start at 1,000 hosts: the plan journals opened one host after another and
# all together, on a real ZooKeeper server, with the newest Spark's Curator; writes
# bench/realtime-start.md (a few minutes).
bench-realtime-start: $(VENV)/.installed
	AOF_SPARK_JARS_2_13=$(SPARK4_JARS) build/sbt "++2.13" \
	  "aof/Test/runMain com.hx.spark.sql.connector.aof.bench.RealTimeStart $(CURDIR)/bench/realtime-start.md"

clean:
	rm -rf $(VENV) $(VENV3) $(VENV34) jvm/target project/target target $(JAR_DIR)
