"""mathtools/identifiers.py: one reader per identifier kind (arXiv id, DOI, Zbl number)."""

from __future__ import annotations

import pytest
from mathtools.core import identifiers
from mathtools.core.errors import BadInput


def test_an_arxiv_id_loses_only_a_trailing_version():
    assert identifiers.unversioned("2104.12255v2") == "2104.12255"
    assert identifiers.unversioned("math/0601001") == "math/0601001"
    assert identifiers.arxiv_id_text("2104.12255", 3) == "2104.12255v3"
    assert identifiers.arxiv_id_text("2104.12255", None) == "2104.12255"


@pytest.mark.parametrize("text", ["2104.12255", "2104.12255v1", "math/0601001v2", "hep-th/9901001"])
def test_ids_as_arxiv_writes_them_are_arxiv_ids(text):
    assert identifiers.is_arxiv_id(text)


@pytest.mark.parametrize("text", ["arXiv:2104.12255", "2104.122", "10.1093/x", ""])
def test_anything_else_is_not(text):
    assert not identifiers.is_arxiv_id(text)


@pytest.mark.parametrize(
    "text",
    ["10.1007/BF01", "doi:10.1007/bf01", "DOI: 10.1007/BF01", "https://doi.org/10.1007/BF01"],
)
def test_a_doi_is_read_however_it_is_prefixed(text):
    assert identifiers.normalise_doi(text) == "10.1007/bf01"
    assert identifiers.doi_text(text) == "10.1007/bf01"


def test_a_doi_field_that_is_no_doi_is_refused_by_the_strict_reader_only():
    with pytest.raises(BadInput, match="not a DOI"):
        identifiers.normalise_doi("ISBN 978-3")
    assert identifiers.doi_text("ISBN 978-3") == "isbn 978-3"


def test_doi_and_arxiv_ids_are_found_in_running_text():
    line = "Tao, T. (2015). A title. arXiv:1509.05363v3, doi:10.1007/s00222-015-0608-x."
    assert identifiers.ARXIV_NEW_ID_IN_TEXT.search(line).group(1) == "1509.05363"
    assert identifiers.DOI_IN_TEXT.search(line).group(1) == "10.1007/s00222-015-0608-x"
    assert identifiers.ZBL.fullmatch("Zbl 1409.11141").group(1) == "1409.11141"
