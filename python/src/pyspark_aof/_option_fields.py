"""``AofOptions``, generated from ``options.json`` by ``python/generate_options.py``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta

from pyspark_aof._options import OptionValues, StartingOffsets


@dataclass(frozen=True)
class AofOptions(OptionValues):
    r"""Every option of the source but ``path``, typed; ``None`` keeps the source's default.

    Bad values raise :class:`ValueError` naming the option, before anything reaches the JVM.
    The defaults are those of :func:`option_specs` (the README's table).

    Attributes
    ----------
    exclude : str or sequence of str, optional
        Java regex searched for in each file's full path (``\.gz$``; a JSON array for several): a
        file it is found in is not read. A tracked file renamed to such a path is still read to its
        end.
    zookeeper_address : str, optional
        ZooKeeper connect string; when absent the driver starts an in-process ZooKeeper server.
    zookeeper_session_timeout : int, optional
        Milliseconds before ZooKeeper ends a silent client's session; a dead endpoint is replaced
        then.
    zookeeper_auth_user : str, optional
        ZooKeeper digest user; with it the source's znodes get ACLs that only this user passes.
    zookeeper_auth_password : str, optional
        Password of ``zookeeper.auth.user``; Spark redacts options named like this in its UI and
        logs.
    zookeeper_ssl_enabled : bool, optional
        Connect to ZooKeeper over TLS (its ``secureClientPort``), trusting the JVM's certificate
        authorities unless a trust store is set. On by itself when a key or trust store is set.
    zookeeper_ssl_keystore_location : str, optional
        File of this client's key and certificate, which ZooKeeper asks for unless its
        ``ssl.clientAuth`` is ``none``: a path on every host, or the name of a file shipped with
        ``--files`` (``spark.files``). Setting it turns TLS on.
    zookeeper_ssl_keystore_password : str, optional
        Password of ``zookeeper.ssl.keystore.location``; Spark redacts options named like this.
    zookeeper_ssl_keystore_type : str, optional
        Format of ``zookeeper.ssl.keystore.location``; by default ZooKeeper's guess from its
        extension (``.jks``, ``.p12``, ``.pem``).
    zookeeper_ssl_truststore_location : str, optional
        File of the certificates that sign ZooKeeper's: a path on every host, or the name of a file
        shipped with ``--files`` (``spark.files``). Setting it turns TLS on.
    zookeeper_ssl_truststore_password : str, optional
        Password of ``zookeeper.ssl.truststore.location``; Spark redacts options named like this.
    zookeeper_ssl_truststore_type : str, optional
        Format of ``zookeeper.ssl.truststore.location``; by default ZooKeeper's guess from its
        extension (``.jks``, ``.p12``, ``.pem``).
    zookeeper_ssl_hostname_verification : bool, optional
        Check that ZooKeeper's certificate names the host connected to.
    zookeeper_sasl_section : str, optional
        Authenticate with SASL as this section of the JVM's JAAS configuration
        (``java.security.auth.login.config``) says: DIGEST-MD5 or Kerberos. The source's znodes then
        get ACLs for that identity.
    zookeeper_sasl_user : str, optional
        Authenticate with SASL DIGEST-MD5 as this user of ZooKeeper's JAAS ``Server`` section,
        without a JAAS file. The source's znodes then get ACLs for that user.
    zookeeper_sasl_password : str, optional
        Password of ``zookeeper.sasl.user``; Spark redacts options named like this.
    zookeeper_sasl_kerberos_principal : str, optional
        Authenticate with Kerberos as this principal, with ``zookeeper.sasl.kerberos.keytab``. The
        source's znodes then get ACLs for it: give the driver and every executor the same principal.
    zookeeper_sasl_kerberos_keytab : str, optional
        Keytab of ``zookeeper.sasl.kerberos.principal``: a path on every host, or the name of a file
        shipped with ``--files`` (``spark.files``).
    starting_offsets : StartingOffsets, optional
        Where a file first seen by a new query starts: ``earliest`` (byte 0) or ``latest`` (its
        end).
    ignore_older : str or datetime.timedelta, optional
        A file first seen (at the query's start or later) not modified for this long (``24h``; units
        ``ms``, ``s``, ``m``, ``h``, ``d``) is followed from its end, not read: what is appended
        later is read. A compressed one is never decompressed.
    bytes_max : int, optional
        Most bytes read from one file in one micro-batch: a batch ends at the last line start within
        them, and reads at least one line (ignored by ``Trigger.Once``; refused in real-time mode).
    batch_bytes_max : int, optional
        Most bytes read in one micro-batch over all hosts and files, shared fairly: a file wanting
        less than an even share gets it whole, a busy one ends at a line start within its share
        (ignored by ``Trigger.Once``; refused in real-time mode).
    batch_bytes_min : int, optional
        Fewest new bytes over all hosts and files worth a micro-batch: while there are fewer to
        read, triggers run no batch until ``batch.wait.max`` has passed since the last one; then
        what there is is read. A query's first trigger, ``Trigger.AvailableNow`` and ``Once`` never
        wait (refused in real-time mode).
    batch_wait_max : str or datetime.timedelta, optional
        With ``batch.bytes.min``, the longest a batch waits for them (units ``ms``, ``s``, ``m``,
        ``h``, ``d``), from the last batch's trigger, which the checkpoint keeps: a restarted query
        does not wait it again.
    node_name_env : str, optional
        Environment variable holding each executor's node name (Kubernetes: ``spec.nodeName``);
        executors of one node share one endpoint.
    nodes : str or sequence of str, optional
        The nodes whose files must be read: a JSON array of names as the ``host`` column shows them
        (a list in Python), or ``standalone``, ``yarn`` or ``kubernetes`` to ask the cluster
        manager. A node of them that no executor reads is named in the metrics, in ``status`` and in
        a warning; ``AvailableNow`` and ``Once`` wait for it, then fail.
    nodes_selector : str, optional
        With ``nodes`` = ``yarn``, the node label the NodeManagers must have; with ``kubernetes``, a
        label selector (``logs=true``).
    nodes_url : str, optional
        The cluster manager that ``nodes`` asks: the standalone master's web UI (by default port
        8080 of the ``spark://`` master's host) or the Kubernetes API server (by default the
        ``k8s://`` master, or the one the pod runs under).
    nodes_refresh_interval : str or datetime.timedelta, optional
        How often ``nodes`` = ``standalone``, ``yarn`` or ``kubernetes`` asks the cluster manager
        again (units ``ms``, ``s``, ``m``, ``h``, ``d``).
    nodes_await_timeout : int, optional
        Milliseconds ``Trigger.AvailableNow`` and ``Once`` wait for every node of ``nodes`` to be
        read; then they fail, naming the nodes unread.
    meta_store : str, optional
        ZooKeeper root of this source's endpoints, requests and offset backup. One running query at
        a time: another on the same one is refused when it starts.
    resume_from_backup : bool, optional
        Whether a query on a new checkpoint resumes from the offset backup in meta.store: a driver
        that lost its checkpoint (on another host, say). Off, a new checkpoint starts where
        starting.offsets says. Needs a ZooKeeper login (zookeeper.auth.* or zookeeper.sasl.*) with
        zookeeper.address, so that no one else can write the backup.
    meta_await_timeout : int, optional
        Milliseconds the driver waits for a node's file metadata before planning without it.
    start_await_timeout : int, optional
        Milliseconds a run's first trigger waits for every host with an executor; then
        ``AvailableNow`` fails naming the silent ones, other triggers plan without them.
    md5_check_enabled : bool, optional
        Compare each tracked file's fingerprints with what was read: other bytes under its inode
        make a new file. Off, the inode is trusted; copies are still told by their fingerprints.
    md5_sample_length : int, optional
        Bytes at the start of a file hashed for its fingerprint.
    partition_bytes_max : int, optional
        Bytes below which a host's reading is not split over more tasks; above, it is shared evenly
        over the host's task slots.
    format : str, optional
        How lines are written: ``text``, or by a container runtime: ``cri`` (containerd, CRI-O:
        ``<time> <stream> <P|F> <message>``) or ``docker`` (json-file). Then ``value`` is the
        message, a long one's chunks joined, and rows gain ``stream`` and ``time``. ``journald``
        reads the systemd journal's entries, not lines (docs/journal.md).
    path_columns : str, optional
        Java regex searched for in each file's path; each named group is a string column (``/var/log
        /pods/(?<namespace>[^_/]+)_(?<pod>[^_/]+)_(?<pod_uid>[^/]+)/(?<container>[^/]+)/``), null
        where it is not found.
    encoding : str, optional
        Charset the files are written in: any the JVM supports (``UTF-16LE``, ``UTF-16`` by each
        file's byte order mark, ``ISO-8859-1``, ``windows-1252``, ``Shift_JIS``, ``GB18030``). Lines
        are found in it, offsets stay in bytes, and ``value`` is the decoded text. Bytes not of it
        become U+FFFD; such lines are counted in ``linesInvalidEncoding``.
    line_separator : str, optional
        What ends a line instead of ``\n`` (with a ``\r`` before it dropped): any string in the
        ``encoding``, taken exactly, such as ``\r`` or NUL (``\u0000``). One that can overlap itself
        (``--``) is refused.
    header_lines : str, optional
        Java regex found in each of the lines at a file's head that are its header (``^#`` for W3C
        and IIS logs; a CSV's column names, ``^time,``): they are not rows, and each row of the file
        carries them, joined by newlines, in a ``header`` column. Text lines, one a row, only.
    line_length_max : int, optional
        Longest line in bytes (with a ``format``, the message); a longer one is emitted cut to this
        length and the rest is skipped.
    multiline_start : str, optional
        Java regex found in the first line of each multi-line record (``^\d{4}-`` for a timestamp);
        other lines continue the record before them. Reads records, not lines.
    multiline_continuation : str, optional
        Java regex found in each continuation line of a multi-line record (``^\s``, for the indented
        lines of a Java stack trace); other lines start a record. Instead of ``multiline.start``.
    multiline_bytes_max : int, optional
        Largest multi-line record in bytes: a line that would take a record past it starts the next
        one.
    multiline_flush_timeout : int, optional
        Milliseconds without a write after which a file's last multi-line record (with a ``format``,
        its last message) is complete, though no line has come to complete it.
    journal_units : str or sequence of str, optional
        With ``format`` ``journald``, the systemd units whose entries are read (``ssh.service``; a
        JSON array for several): an entry's ``_SYSTEMD_UNIT``, or the ``UNIT`` systemd writes of
        one, must be one of them. Judged on the node before any row is made.
    journal_identifiers : str or sequence of str, optional
        With ``format`` ``journald``, the syslog identifiers whose entries are read
        (``SYSLOG_IDENTIFIER``, as ``journalctl -t`` takes them; a JSON array for several). Judged
        on the node.
    journal_priority : str, optional
        With ``format`` ``journald``, the least urgent priority read, as ``journalctl -p`` takes it
        (``warning`` or ``4`` reads 0 to 4); entries without a ``PRIORITY`` are then not read.
        Judged on the node.
    include_lines : str or sequence of str, optional
        Java regex searched for in each line (each record, with the multi-line options); a JSON
        array for several: only lines one of them is found in are read. Judged on the node before
        any row is made; a literal such as ``ERROR`` is looked for in the bytes alone.
    exclude_lines : str or sequence of str, optional
        Java regex searched for in each line (or record), after ``include.lines``; a JSON array for
        several: lines one of them is found in are dropped. Dropped lines count in
        ``linesFiltered``; their offsets still advance.
    cleanup : str, optional
        What becomes of a file once every byte of it is in a committed batch and nothing writes it:
        ``none``, ``delete`` it, or ``archive`` it into ``cleanup.archive.dir``. Never before the
        batch's commit, never the newest file of its directory, never one modified within
        ``cleanup.after``.
    cleanup_archive_dir : str, optional
        Directory on each node that ``cleanup`` = ``archive`` moves files into, each under its whole
        path (``/var/log/app/app.log.1`` to ``<dir>/var/log/app/app.log.1``). A file archived before
        is never replaced: a name taken gets the time of archiving, UTC, before a compressed file's
        extension (``app.log.1.2026-12-03T16-40-00.123Z``,
        ``app.log.2.2026-12-03T16-40-00.123Z.gz``). Refused where a ``path`` would read what is
        moved there.
    cleanup_after : str or datetime.timedelta, optional
        How long a file must have gone unmodified before ``cleanup`` removes it, counted from its
        last write or its rotation away from the live name, whichever is later (later renames along
        a rotation chain do not restart it): longer than a writer may go quiet, or keep writing a
        file it was rotated away from.
    fail_on_data_loss : bool, optional
        Fail the query when bytes go unread (deleted, truncated, replaced first); else log, count.

    Examples
    --------
    >>> AofOptions(starting_offsets=StartingOffsets.LATEST, bytes_max=1 << 20).to_options()
    {'starting.offsets': 'latest', 'bytes.max': '1048576'}
    >>> AofOptions(bytes_max=0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: Invalid value '0' for option 'bytes.max' (...): expected a positive whole number.

    """

    exclude: str | Sequence[str] | None = None
    zookeeper_address: str | None = None
    zookeeper_session_timeout: int | None = None
    zookeeper_auth_user: str | None = None
    zookeeper_auth_password: str | None = field(default=None, repr=False)
    zookeeper_ssl_enabled: bool | None = None
    zookeeper_ssl_keystore_location: str | None = None
    zookeeper_ssl_keystore_password: str | None = field(default=None, repr=False)
    zookeeper_ssl_keystore_type: str | None = None
    zookeeper_ssl_truststore_location: str | None = None
    zookeeper_ssl_truststore_password: str | None = field(default=None, repr=False)
    zookeeper_ssl_truststore_type: str | None = None
    zookeeper_ssl_hostname_verification: bool | None = None
    zookeeper_sasl_section: str | None = None
    zookeeper_sasl_user: str | None = None
    zookeeper_sasl_password: str | None = field(default=None, repr=False)
    zookeeper_sasl_kerberos_principal: str | None = None
    zookeeper_sasl_kerberos_keytab: str | None = None
    starting_offsets: StartingOffsets | None = None
    ignore_older: str | timedelta | None = None
    bytes_max: int | None = None
    batch_bytes_max: int | None = None
    batch_bytes_min: int | None = None
    batch_wait_max: str | timedelta | None = None
    node_name_env: str | None = None
    nodes: str | Sequence[str] | None = None
    nodes_selector: str | None = None
    nodes_url: str | None = None
    nodes_refresh_interval: str | timedelta | None = None
    nodes_await_timeout: int | None = None
    meta_store: str | None = None
    resume_from_backup: bool | None = None
    meta_await_timeout: int | None = None
    start_await_timeout: int | None = None
    md5_check_enabled: bool | None = None
    md5_sample_length: int | None = None
    partition_bytes_max: int | None = None
    format: str | None = None
    path_columns: str | None = None
    encoding: str | None = None
    line_separator: str | None = None
    header_lines: str | None = None
    line_length_max: int | None = None
    multiline_start: str | None = None
    multiline_continuation: str | None = None
    multiline_bytes_max: int | None = None
    multiline_flush_timeout: int | None = None
    journal_units: str | Sequence[str] | None = None
    journal_identifiers: str | Sequence[str] | None = None
    journal_priority: str | None = None
    include_lines: str | Sequence[str] | None = None
    exclude_lines: str | Sequence[str] | None = None
    cleanup: str | None = None
    cleanup_archive_dir: str | None = None
    cleanup_after: str | timedelta | None = None
    fail_on_data_loss: bool | None = None
