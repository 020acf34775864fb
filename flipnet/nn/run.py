"""One entry for every recipe: a network is trained (`train`), the lookup baseline is
built from the training labels (`lookup`)."""


def run(config, resume=False, overwrite=False):
    """The results of the recipe's run (see `train.train` and `lookup.run`)."""
    if config.model == "lookup2d":
        from flipnet.nn.lookup import run as build_lookup

        return build_lookup(config)
    from flipnet.nn.train import train

    return train(config, resume=resume, overwrite=overwrite)
