"""The docs' shared work: both parts read one docs_facts, and the rail pictures keep the rows of cells and the port
texts they drew (pictures_rails_svg._cells, _cell_text, pictures_rails.port_text: pure functions of their
arguments). What they make must equal what is made without them; checked on the example fabric (its generated/
docs are compared byte for byte by tests/test_docs_pictures.py and the render tests)."""

from __future__ import annotations

from railfabric.outputs import pictures_rails, pictures_rails_svg
from railfabric.outputs.docs import docs_facts, docs_files, docs_markdown, docs_pictures, failure_costs
from railfabric.pipeline import run
from tests.helpers import EXAMPLE


def _clear() -> None:
    for cached in (pictures_rails_svg._cells, pictures_rails_svg._cell_text, pictures_rails_svg._cells_width,
                   pictures_rails.port_text):
        cached.cache_clear()


def test_shared_facts_and_warm_caches_change_nothing() -> None:
    res = run(EXAMPLE)
    assert res.inventory is not None and res.topology is not None and res.report is not None
    summary = res.summary()
    assert summary is not None
    name, topo, report = res.inventory.fabric.name, res.topology, res.report
    _clear()
    cold = docs_files(res.inventory, topo, report, summary)  # each part its own facts, caches empty
    facts = docs_facts(name, 0, topo, report)  # the example has no super-spine planes
    warm = {**docs_pictures(name, 0, topo, report, facts), **docs_markdown(name, 0, topo, report, summary, facts,
                                                                        failure_costs(res.inventory, topo))}
    assert warm == cold  # the second drawing takes every row of cells and port text from the caches
    assert pictures_rails_svg._cells.cache_info().hits > 0 and pictures_rails.port_text.cache_info().hits > 0
    # a segment's picture names its own switches (not another segment's of the same layout)
    assert "p1-s2-rail0-4" in cold["docs/rails/pod-1-segment-2.svg"]
    assert "p1-s2-rail0-4" not in cold["docs/rails/pod-1-segment-1.svg"]
