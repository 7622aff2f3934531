"""Helpers the tests share: real servers, terminals, files and models they make."""
