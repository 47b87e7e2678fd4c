"""The one way HEXEval talks to an OpenAI-compatible server: client, answer cache, key scoping."""
