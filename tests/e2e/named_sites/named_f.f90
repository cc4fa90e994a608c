! tests/e2e/record_names.sh: a Fortran program built without -g: the recorder names its
! procedures from .symtab (a module procedure, an external subroutine) without file:line.
module grid
  use mpi
  implicit none
contains
  subroutine halo_swap(rank, nprocs, a)
    integer, intent(in) :: rank, nprocs
    double precision, intent(inout) :: a(16)
    integer :: ierr
    call MPI_SENDRECV_REPLACE(a, 16, MPI_DOUBLE_PRECISION, mod(rank + 1, nprocs), 3, &
                              mod(rank + nprocs - 1, nprocs), 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end subroutine halo_swap
end module grid

subroutine exchange_1(rank, nprocs, a)
  use grid
  implicit none
  integer, intent(in) :: rank, nprocs
  double precision, intent(inout) :: a(16)
  integer :: ierr
  call halo_swap(rank, nprocs, a)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
end subroutine exchange_1

program named_f
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, step
  double precision :: a(16)
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  a = rank
  do step = 1, 4
    call exchange_1(rank, nprocs, a)
  end do
  call MPI_FINALIZE(ierr)
end program named_f
