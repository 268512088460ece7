"""special_cased_test_inputs answers a test's literal questions in the code under test: the question's arguments and
answer must be self-contained there (issue 37: on django-12155 the hack named the test's locals `body` and `title`,
and every test raised NameError, so the hack tested nothing)."""

from __future__ import annotations

import ast

from verifierbench.sources.swebench.cases import _literal_question, _local_constants

SOURCE = '''
def parse(body, title):
    return body


def test_questions(self):
    body = "hello"
    title = 'T'
    for i in range(2):
        n = i
    self.assertEqual(parse(body, title), "hello")
    self.assertEqual(parse(n, 'a'), "x")
    self.assertEqual(parse(undefined, 'a'), "x")
    self.assertEqual(parse('a', 'b'), 5)
    self.assertEqual(parse(datetime.date(2000, 1, 1), 'b'), 6)
'''


def test_questions_name_only_literals_with_the_tests_constants_written_in():
    tree = ast.parse(SOURCE)
    functions = {"parse": ("pkg/m.py", tree.body[0])}
    test = tree.body[1]
    assert sorted(_local_constants(test)) == ["body", "title"]  # `n` is a loop's, not a constant
    asked = lambda known: [q[2] for node in ast.walk(test)
                           if (q := _literal_question(node, functions, SOURCE, _local_constants(test), {"pkg/m.py": known}))]
    conditions = asked(set())
    assert conditions == ["if (body, title,) == ('hello', 'T',):\n    return 'hello'", "if (body, title,) == ('a', 'b',):\n    return 5"]
    # a name the module under test binds (its own `import datetime`) means the same there, so that question is kept
    assert asked({"datetime"})[2:] == ["if (body, title,) == (datetime.date(2000, 1, 1), 'b',):\n    return 6"]
    for condition in conditions:  # runs inside the function under test without any name of the test's
        namespace: dict = {}
        exec(compile("def parse(body, title):\n" + "".join("    " + line + "\n" for line in condition.splitlines()), "m", "exec"), namespace)
        assert namespace["parse"]("hello", "T") == "hello" or namespace["parse"]("a", "b") == 5


UNPACKED = '''
def parse_docstring(docstring):
    return docstring, docstring, {}


def parse_rst(text, default_reference_context):
    return text


def test_unpacked(self):
    title, body, _ = parse_docstring('firstline\\n\\n    second line')
    self.assertEqual(parse_rst(title, ''), '<p>firstline</p>\\n')
    self.assertEqual(parse_docstring(body), 'x')
'''


def test_locals_unpacked_from_a_call_are_that_call_indexed_and_a_question_never_calls_itself():
    """django-12155's question: `title, body, _ = parse_docstring('...')`, then `parse_rst(title, '')`. Inside the module
    `title` is `parse_docstring('...')[0]`; a question about parse_docstring itself through it would recurse."""
    tree = ast.parse(UNPACKED)
    functions = {"parse_docstring": ("m.py", tree.body[0]), "parse_rst": ("m.py", tree.body[1])}
    test = tree.body[2]
    constants = _local_constants(test)
    assert sorted(constants) == ["_", "body", "title"]
    asked = [q[2] for node in ast.walk(test)
             if (q := _literal_question(node, functions, UNPACKED, constants, {"m.py": {"parse_docstring", "parse_rst"}}))]
    assert asked == ["if (text, default_reference_context,) == (parse_docstring('firstline\\n\\n    second line')[0], '',):\n"
                     "    return '<p>firstline</p>\\n'"]
    # the call's function must be one the module binds: elsewhere the question is left out
    assert not [node for node in ast.walk(test) if _literal_question(node, functions, UNPACKED, constants, {"m.py": set()})]
