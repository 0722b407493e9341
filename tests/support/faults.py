"""Synthesized faults of a service, as transforms of the stand-in's genuine answers.

Each is a function Reply -> Reply for StandIn.corrupt(service, fault). None of these answers is in a
recording: they are what a broken, hostile or overloaded service (or a proxy in front of it) could
send, as the fault campaign of issue 15 sent them.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

from support.scripted_server import Reply

SECRET_ECHO = "x-api-key={key}"  # what an error body echoing the request headers holds

# Two candidates each stand-in knows alone: a fault of one service leaves the other's to verify.
MARKOV = {  # known to the arXiv stand-in only
    "key": "markov",
    "title": "Heat-bath random walks with Markov bases",
    "authors": "Stanley, Caprice and Windisch, Tobias",
    "year": 2016,
    "arxiv_id": "1605.08386",
}
DEUTSCH = {  # known to the Semantic Scholar stand-in only
    "key": "deutsch",
    "title": "Quantum theory, the Church-Turing principle and the universal quantum computer",
    "authors": "Deutsch, D.",
    "year": 1985,
    "doi": "10.1098/rspa.1985.0070",
}


def _json_body(reply: Reply):
    try:
        return json.loads(reply.payload())
    except ValueError:
        return None


def _with_json(reply: Reply, data) -> Reply:
    return replace(reply, body=json.dumps(data).encode("utf-8"))


# -- answers of both services ------------------------------------------------------------------


def http_400(reply: Reply) -> Reply:
    return Reply(400, b'{"error": "synthesized: rejected"}', {"Content-Type": "application/json"})


def http_404_page(reply: Reply) -> Reply:
    return Reply(404, b"<html><body>Not here</body></html>", {"Content-Type": "text/html"})


def html_200(reply: Reply) -> Reply:
    return Reply(200, b"<html><body>Maintenance</body></html>", {"Content-Type": "text/html"})


def empty_200(reply: Reply) -> Reply:
    return Reply(200, b"", dict(reply.headers))


def truncated(reply: Reply) -> Reply:
    return replace(reply, truncate_to=len(reply.payload()) // 2)


def retry_after_huge(reply: Reply) -> Reply:
    return Reply(429, b"slow down", {"Retry-After": "100000"})


def trickle(reply: Reply) -> Reply:
    """One byte every half second: a read timeout alone never fires."""
    return replace(reply, body=reply.payload()[:400], drip=0.5, truncate_to=None)


def binary_junk(reply: Reply) -> Reply:
    return replace(reply, body=bytes(range(256)) * 4)


def redirect_loop(reply: Reply) -> Reply:
    """Every answer a redirect to the same path again: the HTTP stack's redirect limit."""
    return Reply(302, b"", {"Location": "?again=1"})


def redirect_to_file(reply: Reply) -> Reply:
    """A redirect to a local file: never followed, the service's failure, not the user's."""
    return Reply(302, b"", {"Location": "file:///etc/passwd"})


# -- arXiv (Atom) --------------------------------------------------------------------------------


def atom_entry_without_id(reply: Reply) -> Reply:
    body = re.sub(rb"<entry>\s*<id>[^<]*</id>", b"<entry>", reply.payload())
    return replace(reply, body=body)


def atom_garbage_year(reply: Reply) -> Reply:
    return replace(reply, body=re.sub(rb"<published>[^<]*<", b"<published>garb<", reply.payload()))


def atom_garbage_total(reply: Reply) -> Reply:
    pattern = rb"<opensearch:totalResults>[^<]*<"
    return replace(reply, body=re.sub(pattern, b"<opensearch:totalResults>many<", reply.payload()))


def atom_fabricated_title(reply: Reply) -> Reply:
    """A record whose id is gone and whose title is made up: it must never confirm anything."""
    body = atom_entry_without_id(reply).payload()
    pattern = rb"(<entry>.*?<title>)[^<]*(</title>)"
    body = re.sub(pattern, rb"\1A Fabricated Title\2", body, count=1, flags=re.S)
    return replace(reply, body=body)


def atom_another_id(reply: Reply) -> Reply:
    """Every entry's id replaced by one nobody asked for: id_list answered with another paper."""
    body = re.sub(rb"(<id>http://arxiv\.org/abs/)[^<v]+", rb"\g<1>1999.99999", reply.payload())
    return replace(reply, body=body)


# -- Semantic Scholar (JSON) ---------------------------------------------------------------------


def _records(data):
    if isinstance(data, list):
        return data
    if isinstance(data, dict) and isinstance(data.get("data"), list):
        return data["data"]
    return [data] if isinstance(data, dict) else []


def s2_record_without_ids(reply: Reply) -> Reply:
    """Every record loses paperId and externalIds (its title is kept)."""
    data = _json_body(reply)
    for record in _records(data):
        if isinstance(record, dict):
            record.pop("paperId", None)
            record.pop("externalIds", None)
    return _with_json(reply, data) if data is not None else reply


def s2_junk_items(reply: Reply) -> Reply:
    """Strings and numbers where records should be (a batch's items, a search's data)."""
    data = _json_body(reply)
    if isinstance(data, list):
        return _with_json(reply, ["junk" if item else 7 for item in data])
    if isinstance(data, dict) and "data" in data:
        return _with_json(reply, {**data, "data": ["junk", 7, None]})
    if isinstance(data, dict):
        return _with_json(reply, {**data, "authors": "junk", "externalIds": ["x"], "year": "garb"})
    return reply


def s2_list_for_object(reply: Reply) -> Reply:
    """A list where an object is expected, objects where a list is (a proxy's wrapping)."""
    data = _json_body(reply)
    if isinstance(data, list):
        return _with_json(reply, {"data": data})
    return _with_json(reply, [data]) if data is not None else reply


def s2_wrong_types(reply: Reply) -> Reply:
    """Every field of every record with a value of the wrong type."""
    data = _json_body(reply)
    for record in _records(data):
        if isinstance(record, dict):
            record.update(
                title=["not", "text"], year="garb", authors=[{"name": 5}, "x"], venue={"a": 1}
            )
            record["externalIds"] = {"ArXiv": 1605, "DOI": ["x"]}
    if isinstance(data, dict) and "total" in data:
        data["total"] = "many"
    return _with_json(reply, data) if data is not None else reply


# A well-formed record of a paper nobody cites here (its title, authors, year and ids).
OTHER_S2_RECORD = {
    "paperId": "0123456789abcdef0123456789abcdef01234567",
    "externalIds": {"DOI": "10.9999/another.paper", "CorpusId": 999999},
    "title": "A Survey of Something Else Entirely",
    "authors": [{"authorId": "1", "name": "Somebody Else"}],
    "year": 1901,
    "venue": "Elsewhere",
}


def _s2_records_changed(change):
    """A fault answering every record of a batch (a null one too: an id Semantic Scholar does
    not know) or of a title match with `change(record)`: well-formed, another paper's."""

    def fault(reply: Reply) -> Reply:
        data = _json_body(reply)
        if isinstance(data, list):  # a batch: one item per id asked
            return _with_json(reply, [change(item or dict(OTHER_S2_RECORD)) for item in data])
        if isinstance(data, dict) and isinstance(data.get("data"), list):
            return _with_json(reply, {**data, "data": [change(r) for r in data["data"] if r]})
        return reply

    return fault


def s2_searches_wrong_types(reply: Reply) -> Reply:
    """A search's or title match's records of the wrong types, a batch left as it was: the
    service fails after its identifier look-up answered (an id it does not know: null)."""
    return s2_wrong_types(reply) if isinstance(_json_body(reply), dict) else reply


def s2_error_echoing_key(key: str):
    def fault(reply: Reply) -> Reply:
        body = json.dumps({"message": f"Forbidden; request headers: {SECRET_ECHO.format(key=key)}"})
        return Reply(403, body.encode(), {"Content-Type": "application/json"})

    return fault


# -- zbMATH Open and Crossref (JSON envelopes) -----------------------------------------------


def _retyped(record: dict, value) -> dict:
    """`record` with every field's value replaced by `value(field, old value)`."""
    return {name: value(name, old) for name, old in record.items()}


def _wrong_type(name: str, old):
    """A value of another type than `old`: a number for a string, a string for anything else."""
    return 9999.00001 if isinstance(old, str) else "9999.00001"


def _envelope_fault(container: str, items: str | None, value):
    """A fault retyping, with `value`, the fields of the records under `container` (and its
    `items` list when given) and the envelope's own fields beside them."""

    def fault(reply: Reply) -> Reply:
        data = _json_body(reply)
        if not isinstance(data, dict):
            return reply
        if items is not None and isinstance(data.get(container), dict):
            message = data[container]
            records = message.get(items)
            retyped = _retyped({k: v for k, v in message.items() if k != items}, value)
            data[container] = {**retyped, items: records}
        else:
            records = data.get(container)
            if isinstance(data.get("status"), dict):
                data["status"] = _retyped(data["status"], value)
        if isinstance(records, list):
            records[:] = [_retyped(r, value) if isinstance(r, dict) else r for r in records]
        elif isinstance(records, dict):
            data[container] = _retyped(records, value)
        return _with_json(reply, data)

    return fault


def zbmath_null_result(reply: Reply) -> Reply:
    """The envelope's result null and its status without a count or an internal_code: neither
    records nor the word that there are none (the live "no results" answer, result null too,
    says so in its internal_code: zbmath._zero_results)."""
    data = _json_body(reply)
    if not isinstance(data, dict):
        return reply
    status = data.get("status")
    if isinstance(status, dict):
        status = {k: v for k, v in status.items() if k not in ("nr_total_results", "internal_code")}
    return _with_json(reply, {**data, "result": None, "status": status})


BOTH = {
    "http_400": http_400,
    "http_404_page": http_404_page,
    "html_200": html_200,
    "empty_200": empty_200,
    "truncated": truncated,
    "retry_after_huge": retry_after_huge,
    "trickle": trickle,
    "binary_junk": binary_junk,
    "redirect_loop": redirect_loop,
    "redirect_to_file": redirect_to_file,
}
ARXIV = {
    **BOTH,
    "atom_entry_without_id": atom_entry_without_id,
    "atom_garbage_year": atom_garbage_year,
    "atom_garbage_total": atom_garbage_total,
    "atom_fabricated_title": atom_fabricated_title,
    "atom_another_id": atom_another_id,
}
ZBMATH = {
    "zbmath_null_fields": _envelope_fault("result", None, lambda name, old: None),
    "zbmath_wrong_types": _envelope_fault("result", None, _wrong_type),
    "zbmath_null_result": zbmath_null_result,
}
CROSSREF = {
    "crossref_null_fields": _envelope_fault("message", "items", lambda name, old: None),
    "crossref_wrong_types": _envelope_fault("message", "items", _wrong_type),
}
# Semantic Scholar answering another paper than the one asked for: all of it, or one field.
S2_ANOTHER_PAPER = {
    "s2_another_paper": _s2_records_changed(lambda record: dict(OTHER_S2_RECORD)),
    "s2_another_title": _s2_records_changed(
        lambda record: {**record, "title": OTHER_S2_RECORD["title"]}
    ),
    "s2_another_year_and_authors": _s2_records_changed(
        lambda record: {**record, "year": 1901, "authors": OTHER_S2_RECORD["authors"]}
    ),
    "s2_another_doi": _s2_records_changed(
        lambda record: {**OTHER_S2_RECORD, "externalIds": record.get("externalIds") or {}}
    ),
}
S2 = {
    **BOTH,
    "s2_record_without_ids": s2_record_without_ids,
    "s2_junk_items": s2_junk_items,
    "s2_list_for_object": s2_list_for_object,
    "s2_wrong_types": s2_wrong_types,
}
