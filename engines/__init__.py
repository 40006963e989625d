"""Pure rules engines, one package per game. See ``engines.base``."""
