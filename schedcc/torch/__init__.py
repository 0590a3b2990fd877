"""PyTorch in. Importing this package imports no torch.

* FX graphs reordered to hide their collectives (docs/torch-fx.md): ``fx_ops``, ``fx_graph``,
  ``fx_order``, ``fx_streams``, ``fx_best``, ``fx_reorder``, ``fx_bound`` (a lower bound on the exposed
  communication of any order), ``fx_volume`` (the same for any splitting or bucketing), ``rebucket``
  (split and merge bucketed collectives, ``reorder(..., rebucket=True)``), ``coalesce`` (merge
  independent collectives, the same option), ``inductor``, ``capture``, ``spmd``.
* Profiler traces of real runs (docs/traces.md): :mod:`schedcc.torch.kineto` (read),
  :mod:`schedcc.torch.replay` (replay, measured vs replayed), :mod:`schedcc.torch.exposed`
  (HTA's exposed communication), :mod:`schedcc.torch.whatif` (what-ifs); reading a trace
  needs neither torch nor HTA.
"""


def reorder(gm, cluster="h100-8x", **options):
    """Reorder an FX graph's nodes for *cluster*: :func:`schedcc.torch.fx_reorder.reorder`."""
    from schedcc.torch.fx_reorder import reorder as run
    return run(gm, cluster, **options)


def post_grad_pass(cluster="h100-8x", **options):
    """:func:`reorder` as Inductor's custom post-grad pass: :func:`schedcc.torch.fx_reorder.post_grad_pass`."""
    from schedcc.torch.fx_reorder import post_grad_pass as make
    return make(cluster, **options)
