# The two entry points of the README: `make demo` (set up, then run the demo) and `make test`.
# Everything is fetched through the ordinary clients: Maven for sbt, pip for Python packages.
SBT := build/sbt
VENV := .venv
PY := $(VENV)/bin/python
JAR_DIR := python/src/pyspark_aof/jars

.PHONY: setup system jar demo test test-jvm test-python lint bench clean

setup: jar $(VENV)/.installed

# The JAR for the Python package (not the sources JAR made beside it), and the same in ~/.m2 for
# `spark-submit --packages`.
jar:
	$(SBT) aof/package aof/publishM2
	mkdir -p $(JAR_DIR)
	rm -f $(JAR_DIR)/*.jar
	cp $$(ls jvm/target/scala-2.12/spark-aof_2.12-*.jar | grep -v -e '-sources.jar$$' -e '-tests.jar$$') \
	  $(JAR_DIR)/

$(VENV)/.installed: python/pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q -e 'python[test]'
	touch $@

demo: setup
	$(PY) -m pyspark_aof demo

test: setup system lint test-jvm test-python

system:
	build/install-system-packages

test-jvm:
	$(SBT) scalafmtCheckAll aof/test

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check python tests/python bench
	$(VENV)/bin/mypy --config-file python/pyproject.toml python/src tests/python
	$(VENV)/bin/mypy --config-file python/pyproject.toml bench

# Every benchmark of bench/; writes bench/results.md and bench/results.png (about 10 minutes).
# The Kafka reference row fetches a broker with Maven on first use; `bench/run.py --no-kafka`
# leaves it out.
bench: setup
	$(PY) bench/run.py

test-python: $(VENV)/.installed
	$(VENV)/bin/pytest -q tests/python || [ $$? -eq 5 ]

clean:
	rm -rf $(VENV) jvm/target project/target target $(JAR_DIR)
