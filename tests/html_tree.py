"""A tiny DOM from html.parser (no lxml/bs4 in the environment): the built pages' tests read
their figures by tag and attribute, and `squash` compares texts with whitespace collapsed."""

from __future__ import annotations

from html.parser import HTMLParser


class Node:
    def __init__(self, tag: str, attrs: dict, parent: Node | None):
        self.tag, self.attrs, self.parent, self.children = tag, attrs, parent, []

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self):
        for c in self.children:
            if isinstance(c, Node):
                yield c
                yield from c.iter()

    def find_all(self, tag: str | None = None, **attrs) -> list[Node]:
        def ok(n: Node) -> bool:
            if tag and n.tag != tag:
                return False
            for k, v in attrs.items():
                k = k.rstrip("_").replace("_", "-")
                if v is True:
                    if k not in n.attrs:
                        return False
                elif k == "class":
                    if v not in (n.attrs.get("class") or "").split():
                        return False
                elif n.attrs.get(k) != v:
                    return False
            return True

        return [n for n in self.iter() if ok(n)]

    def find(self, tag: str | None = None, **attrs) -> Node | None:
        found = self.find_all(tag, **attrs)
        return found[0] if found else None


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class TreeBuilder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {}, None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, dict(attrs), self.cur)
        self.cur.children.append(node)
        if tag not in VOID:
            self.cur = node

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, dict(attrs), self.cur))

    def handle_endtag(self, tag):
        node = self.cur
        while node is not self.root and node.tag != tag:
            node = node.parent
        if node is not self.root:
            self.cur = node.parent

    def handle_data(self, data):
        self.cur.children.append(data)


def parse(html: str) -> Node:
    builder = TreeBuilder()
    builder.feed(html)
    return builder.root


def squash(text: str) -> str:
    return " ".join(text.split())
