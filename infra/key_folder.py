"""The key folder: where a deployment's private signing keys live, apart from its database.

A reader of the database must not be able to sign: the ``signing_keys`` table
holds public keys and their validity only (`infra.keyring`), and the private key of each
key the service made is a file ``<kid>.pem`` (PKCS #8 PEM, `infra.signing.Signer.pem`)
in the key folder, readable by its owner only (mode 0600, the folder 0700).

The folder is ``--key-dir`` (``doko serve``, ``doko keys``, ``doko export``, ``doko db
upgrade``), else ``$DOKO_KEY_DIR``, else ``<user data dir>/doko/keys``. Every process that
signs for a deployment needs the current key's file: the workers of one host share its
folder; several hosts share one folder (a network file system, a secret volume) or one
key file given by configuration (``--signing-key``).

A file is written whole (to a temporary file, synced, then renamed), so a process never
reads half a key; the file of a retired key is deleted (it signs nothing any more).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

import platformdirs

from infra.signing import KeyFileError, Signer

KEY_DIR_VARIABLE = "DOKO_KEY_DIR"
"""The environment variable naming the key folder."""


def key_dir(given: str | Path | None = None) -> Path:
    """The key folder: ``given``, else `KEY_DIR_VARIABLE`, else ``<user data dir>/doko/keys``."""
    if given is not None:
        return Path(given)
    named = os.environ.get(KEY_DIR_VARIABLE)
    return Path(named) if named else platformdirs.user_data_path("doko") / "keys"


class KeyFolder:
    """The private keys of one folder, by key id."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = key_dir(path)

    def file(self, kid: str) -> Path:
        """Where the private key ``kid`` is kept."""
        return self.path / f"{kid}.pem"

    def write(self, signer: Signer) -> None:
        """Keep ``signer``'s private key, readable by its owner only."""
        self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(dir=self.path, prefix=".", suffix=".tmp")
        with os.fdopen(descriptor, "wb") as file:  # mkstemp makes it 0600
            file.write(signer.pem())
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, self.file(signer.kid))

    def read(self, kid: str) -> Signer | None:
        """The private key ``kid``, None if the folder does not hold it; raises
        `KeyFileError` for a file that is not that key."""
        try:
            data = self.file(kid).read_bytes()
        except FileNotFoundError:
            return None
        except OSError as error:
            raise KeyFileError(f"{self.file(kid)}: cannot read it ({error.strerror})") from error
        signer = Signer.from_pem(data)
        if signer.kid != kid:
            raise KeyFileError(f"{self.file(kid)} holds key {signer.kid}, not {kid}")
        return signer

    def remove(self, kid: str) -> None:
        """Delete the private key ``kid`` (nothing if the folder does not hold it)."""
        with contextlib.suppress(FileNotFoundError):
            self.file(kid).unlink()
