"""PyTorch in (docs/torch-fx.md): FX graphs reordered to hide their collectives (``fx_*``,
``inductor``, ``capture``, ``spmd``). Importing this package imports no torch."""


def reorder(gm, cluster="h100-8x", **options):
    """Reorder an FX graph's nodes for *cluster*: :func:`schedcc.torch.fx_reorder.reorder`."""
    from schedcc.torch.fx_reorder import reorder as run
    return run(gm, cluster, **options)


def post_grad_pass(cluster="h100-8x", **options):
    """:func:`reorder` as Inductor's custom post-grad pass: :func:`schedcc.torch.fx_reorder.post_grad_pass`."""
    from schedcc.torch.fx_reorder import post_grad_pass as make
    return make(cluster, **options)
